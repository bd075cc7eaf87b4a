import Foundation

/// What the resource server reads of an incoming request, in whatever framework it arrived.
public struct ResourceRequest: Sendable {
    /// The HTTP method, e.g. `GET`.
    public var method: String
    /// The request's URL as the client addressed it (scheme, host, port, path): what a DPoP proof's `htu` names.
    public var url: URL
    /// The `Authorization` header.
    public var authorization: String?
    /// The `DPoP` header: the proof of possession of a bound token's key.
    public var dpop: String?

    /// A request of `method` to `url` with its `Authorization` and `DPoP` headers.
    public init(method: String, url: URL, authorization: String?, dpop: String? = nil) {
        self.method = method
        self.url = url
        self.authorization = authorization
        self.dpop = dpop
    }
}
