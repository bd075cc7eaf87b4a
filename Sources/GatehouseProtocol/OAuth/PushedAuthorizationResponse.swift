/// The answer of the pushed authorization request endpoint (RFC 9126 §2.2): the reference the authorization request
/// is then made with, in place of its parameters.
public struct PushedAuthorizationResponse: Codable, Sendable, Equatable {
    /// `urn:ietf:params:oauth:request_uri:…`, sent to the authorization endpoint with `client_id`; usable once.
    public var requestURI: String
    /// Seconds until the reference expires.
    public var expiresIn: Int

    /// A pushed authorization response.
    public init(requestURI: String, expiresIn: Int) {
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case requestURI = "request_uri"
        case expiresIn = "expires_in"
    }
}
