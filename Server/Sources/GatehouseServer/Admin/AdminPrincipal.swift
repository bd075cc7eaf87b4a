import GatehouseDomain
import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// Who calls the admin API: a client acting for itself with an admin scope, or a personal admin token.
struct AdminPrincipal: Sendable {
    /// The audit trail's actor: `client:ID` or `admin-token:NAME`.
    var actor: String
    /// Whether the token may change things (`gatehouse:admin`), or only read (`gatehouse:admin:read`).
    var canWrite: Bool

    /// The principal of `request`'s access token; throws 401 without a usable one (a DPoP-bound token without a proof
    /// of its key among them, checked as every protected endpoint checks it), 403 for a token without an admin scope.
    static func of(
        _ request: Request, adminTokens: AdminTokenStore, tokens: TokenStore, proofs: DPoPProofCheck
    ) async throws -> AdminPrincipal {
        // A refusal of a DPoP proof carries a fresh nonce when nonces are on.
        func refused(_ refusal: PresentedAccessToken.Refusal) -> AdminProblem { AdminProblem.refused(refusal, nonce: proofs.nonces?.current) }
        let presented: PresentedAccessToken
        do {
            guard let token = try PresentedAccessToken.of(request), token.token.utf8.count <= 512 else { throw AdminProblem.unauthorized }
            presented = token
        } catch let refusal as PresentedAccessToken.Refusal {
            throw refused(refusal)
        }
        if presented.token.hasPrefix(AdminTokenStore.prefix) {
            // Personal admin tokens are bearer tokens: they are never bound to a key.
            guard presented.scheme == .bearer else { throw refused(.unboundTokenAsDPoP) }
            guard let record = try await adminTokens.verify(presented.token) else { throw AdminProblem.invalidToken }
            return AdminPrincipal(actor: "admin-token:\(record.name)", canWrite: !record.readOnly)
        }
        guard let access = try await tokens.activeAccessToken(presented.token), access.audience == nil else { throw AdminProblem.invalidToken }
        do {
            _ = try await presented.checkBinding(to: access.jkt, request: request, path: request.uri.path, proofs: proofs)
        } catch {
            throw refused(error)
        }
        // A token that acts for a user is never an admin token, whatever its scopes.
        guard access.userID == nil else { throw AdminProblem.forbiddenScope }
        if access.scopes.contains("gatehouse:admin") { return AdminPrincipal(actor: "client:\(access.clientID)", canWrite: true) }
        if access.scopes.contains("gatehouse:admin:read") { return AdminPrincipal(actor: "client:\(access.clientID)", canWrite: false) }
        throw AdminProblem.forbiddenScope
    }
}

/// Admin requests per caller and per minute, counted on this node: a runaway script is slowed, not the server.
actor AdminRateLimiter {
    private var windows: [String: (start: Int64, count: Int)] = [:]
    let limit: Int
    let clock: UnixClock

    init(limit: Int = 600, clock: UnixClock) {
        self.limit = limit
        self.clock = clock
    }

    /// Counts a request of `key`; throws 429 past the limit within the current minute.
    func admit(_ key: String) throws {
        let now = clock.now()
        let minute = now - now % 60
        if windows.count > 10_000 { windows = windows.filter { $0.value.start == minute } }
        var window: (start: Int64, count: Int) = windows[key].flatMap { $0.start == minute ? $0 : nil } ?? (minute, 0)
        window.count += 1
        windows[key] = window
        if window.count > limit { throw AdminProblem.tooManyRequests(retryAfter: Int(minute + 60 - now)) }
    }
}
