/// A signing key as stored: public JWK in the clear, private key sealed with the server secret.
public struct SigningKeyRecord: Sendable, Equatable {
    public var kid: String
    /// `RS256` or `ES256`.
    public var algorithm: String
    public var publicJWK: String
    package var sealedPrivateKey: String
    public var createdAt: Int64
    /// When the key stopped signing; `nil` while it is the active key of its algorithm.
    public var retiredAt: Int64?
    /// Until when a retired key stays in the JWKS, so tokens it signed can still be verified.
    public var publishedUntil: Int64?

    public var isActive: Bool { retiredAt == nil }

    public func isPublished(at now: Int64) -> Bool {
        retiredAt == nil || (publishedUntil ?? 0) > now
    }
}
