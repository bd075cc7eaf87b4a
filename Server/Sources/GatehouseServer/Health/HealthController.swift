import Hummingbird
import SQLKit

/// Liveness (the process answers) and readiness (the database answers) for load balancers and orchestrators.
struct HealthController: Sendable {
    let server: IdentityServer

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/health/live") { _, _ in JSONResponse.make(HealthStatus.ok) }
        router.get("/health/ready") { _, _ in
            do {
                _ = try await server.database.read { sql in try await sql.raw("SELECT 1 AS ok").first() }
                _ = try await server.keys.publicKeySet()
                return JSONResponse.make(HealthStatus.ok)
            } catch {
                server.logger.error("Readiness check failed", metadata: ["error": "\(error)"])
                return JSONResponse.make(HealthStatus.unavailable, status: .serviceUnavailable)
            }
        }
    }
}
