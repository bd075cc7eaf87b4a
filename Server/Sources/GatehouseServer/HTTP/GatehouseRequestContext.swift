import Hummingbird
import NIOCore

/// The request context of every Gatehouse route: Hummingbird's basic context plus the peer's address, which
/// the per-source attempt limits count by (``ClientAddress``).
public struct GatehouseRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer; `nil` where there is no socket (in-process tests).
    public let remoteAddress: SocketAddress?

    /// Whether the request's connection has closed since the request came: its client no longer waits for the answer.
    public let connectionClosed: @Sendable () -> Bool

    /// A context for a request arriving on `source`'s channel; the peer's address is read from the channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        let channel = source.channel
        // Only a connection that was open can close: an in-process test's channel never was.
        let wasActive = channel.isActive
        connectionClosed = { wasActive && !channel.isActive }
    }
}
