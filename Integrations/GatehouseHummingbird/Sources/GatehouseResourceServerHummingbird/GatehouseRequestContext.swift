import GatehouseResourceServer
import Hummingbird

/// A request context that carries what the request's access token allows, once ``GatehouseAuthentication`` checked it.
public protocol GatehouseRequestContext: RequestContext {
    /// The checked token's grant; `nil` before the middleware ran.
    var accessGrant: AccessGrant? { get set }
}

/// A ready-made context for APIs that need nothing else in theirs.
public struct GatehouseAPIContext: GatehouseRequestContext {
    /// Hummingbird's own part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The checked token's grant.
    public var accessGrant: AccessGrant?

    /// A context for a request from `source`.
    public init(source: Source) {
        coreContext = .init(source: source)
    }
}
