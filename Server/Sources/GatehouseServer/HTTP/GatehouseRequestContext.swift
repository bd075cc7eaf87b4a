import Hummingbird
import NIOCore

/// The request context of every Gatehouse route: Hummingbird's basic context plus the peer's address, which
/// the per-source attempt limits count by (``ClientAddress``).
public struct GatehouseRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer; `nil` where there is no socket (in-process tests).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
