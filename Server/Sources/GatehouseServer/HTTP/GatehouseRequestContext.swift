import GatehouseFoundation
import Hummingbird
import NIOCore

/// The request context of every Gatehouse route: Hummingbird's basic context plus the peer's address, which
/// the per-source attempt limits count by (``ClientAddress``).
public struct GatehouseRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer; `nil` where there is no socket (in-process tests).
    public let remoteAddress: SocketAddress?

    /// The request's caller, gone once its connection closes (``CallerPresence``).
    public let caller: CallerPresence

    /// A context for a request arriving on `source`'s channel; the peer's address is read from the channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        caller = CallerPresence(connection: source.channel)
    }
}
