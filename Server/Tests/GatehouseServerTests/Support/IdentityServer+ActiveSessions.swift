@testable import GatehouseDomain
@testable import GatehouseServer

extension IdentityServer {
    /// Where each user is signed in, as the admin operations read it: the server itself keeps no such store.
    var activeSessions: ActiveSessions {
        ActiveSessions(database: database, clock: clock, idleTimeout: configuration.tokens.sessionIdle)
    }
}
