import GatehouseEngines
import GatehouseFoundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import SQLKit

/// Liveness (the process answers) and readiness (the database answers reads and takes writes) for load balancers
/// and orchestrators. Readiness answers within ``readinessLimit`` whatever the database does: a probe that hung for
/// the length of an outage would keep a load balancer sending requests to a node that cannot serve them.
struct HealthController: Sendable {
    let database: any Database
    /// The signing keys, which must load for the node to sign anything.
    let keys: SigningKeyRing
    let probe: WriteProbe
    let logger: Logger
    static let readinessLimit: Duration = .seconds(1)

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/health/live") { _, _ in JSONResponse.make(HealthStatus.ok) }
        router.get("/health/ready") { _, _ in
            let failure = await Self.within(Self.readinessLimit) { [database, keys, probe] () -> String? in
                do {
                    _ = try await database.read { sql in try await sql.raw("SELECT 1 AS ok").first() }
                    _ = try await keys.publicKeySet()
                } catch {
                    return "the database cannot be read (\(DatabaseFailure.reason(of: error) ?? String(reflecting: type(of: error))))"
                }
                return await probe.failure().map { "the database takes no writes (\($0))" }
            }
            switch failure {
            case .some(nil):
                return JSONResponse.make(HealthStatus.ok)
            case .some(let reason?):
                logger.error("Readiness check failed", metadata: ["reason": "\(reason)"])
            case nil:
                logger.error("Readiness check failed: the database did not answer within a second")
            }
            var response = JSONResponse.make(HealthStatus.unavailable, status: .serviceUnavailable)
            response.headers[.retryAfter] = "1"
            return response
        }
    }

    /// `work`'s result, or `nil` once `limit` has passed without one: then `work` is cancelled, and not waited for (a
    /// query on a connection to a vanished server may take its time to notice).
    static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let answered = NIOLockedValueBox(false)
            let answer = { @Sendable (value: T?) in
                let first = answered.withLockedValue { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: value) }
            }
            // The probe's write is shared by later probes: it must not roll back because one caller left early.
            let worker = Task { answer(await CallerPresence.unattended { await work() }) }
            Task {
                try? await Task.sleep(for: limit)
                answer(nil)
                worker.cancel()
            }
        }
    }
}
