/// A signing key as stored: public JWK in the clear, private key sealed with the server secret.
///
/// A key is published from the moment it is stored, signs from ``activatesAt`` until ``retiredAt``, and stays published
/// until ``publishedUntil``: a key made by the rotation schedule is in the JWKS a while before it signs, so relying
/// parties that cached the key set already hold it; a retired key stays there until every token it signed has expired.
public struct SigningKeyRecord: Sendable, Equatable {
    public var kid: String
    /// `RS256` or `ES256`.
    public var algorithm: String
    public var publicJWK: String
    package var sealedPrivateKey: String
    public var createdAt: Int64
    /// When the key starts signing: when it was made, or later for a key the schedule made ahead.
    public var activatesAt: Int64
    /// When the key stops signing; `nil` while no successor is scheduled.
    public var retiredAt: Int64?
    /// Until when a retired key stays in the JWKS, so tokens it signed can still be verified.
    public var publishedUntil: Int64?

    /// Where a key is in its life at a moment.
    public enum Status: String, Sendable, Codable {
        /// Published, not signing yet.
        case next
        /// Signing.
        case active
        /// Published only, for the tokens it signed.
        case retired
    }

    package init(
        kid: String, algorithm: String, publicJWK: String, sealedPrivateKey: String, createdAt: Int64, activatesAt: Int64? = nil,
        retiredAt: Int64? = nil, publishedUntil: Int64? = nil
    ) {
        self.kid = kid
        self.algorithm = algorithm
        self.publicJWK = publicJWK
        self.sealedPrivateKey = sealedPrivateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt ?? createdAt
        self.retiredAt = retiredAt
        self.publishedUntil = publishedUntil
    }

    public func status(at now: Int64) -> Status {
        if let retiredAt, retiredAt <= now { return .retired }
        return activatesAt <= now ? .active : .next
    }

    /// Whether the key signs at `now`.
    public func isActive(at now: Int64) -> Bool { status(at: now) == .active }

    /// Whether the key signs at `now` or will later: its private half is needed.
    public func signs(after now: Int64) -> Bool { status(at: now) != .retired }

    public func isPublished(at now: Int64) -> Bool {
        retiredAt == nil || (publishedUntil ?? 0) > now
    }
}
