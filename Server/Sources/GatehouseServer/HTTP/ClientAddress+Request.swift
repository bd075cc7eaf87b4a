import GatehouseDomain
import Hummingbird

/// Where a request comes from, read from its connection and, behind trusted proxies, its headers.
extension ClientAddress {
    /// The source of a request seen through `context`; contexts that do not know the peer give ``unknown``.
    init(of context: some RequestContext) {
        self.init((context as? any RemoteAddressRequestContext)?.remoteAddress)
    }

    /// The source of `request`: the connection's peer, or, when the peer is one of `proxies`, the client they name.
    init(of request: Request, context: some RequestContext, trusting proxies: TrustedProxies) {
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress
        self.init(peer.map { proxies.client(behind: $0, headers: request.headers) })
    }
}
