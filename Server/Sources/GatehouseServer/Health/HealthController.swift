import Hummingbird
import SQLKit

/// Liveness (the process answers) and readiness (the database answers reads and takes writes) for load balancers
/// and orchestrators.
struct HealthController: Sendable {
    let server: IdentityServer
    let probe = WriteProbe()

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/health/live") { _, _ in JSONResponse.make(HealthStatus.ok) }
        router.get("/health/ready") { _, _ in
            do {
                _ = try await server.database.read { sql in try await sql.raw("SELECT 1 AS ok").first() }
                _ = try await server.keys.publicKeySet()
            } catch {
                server.logger.error("Readiness check failed: the database cannot be read", metadata: DatabaseFailure.metadata(error))
                return JSONResponse.make(HealthStatus.unavailable, status: .serviceUnavailable)
            }
            if let failure = await probe.failure(in: server) {
                server.logger.error("Readiness check failed: the database takes no writes", metadata: ["database": "\(failure)"])
                return JSONResponse.make(HealthStatus.unavailable, status: .serviceUnavailable)
            }
            return JSONResponse.make(HealthStatus.ok)
        }
    }
}
