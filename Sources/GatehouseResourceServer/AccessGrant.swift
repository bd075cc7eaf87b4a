import Foundation

/// What a valid access token allows: who it acts for, which client holds it, its scopes.
public struct AccessGrant: Sendable, Equatable {
    /// The token's subject (`sub`): the person, or the client when it acts for itself.
    public var subject: String
    /// The client the token was issued to (`client_id`).
    public var clientID: String
    /// The token's scopes.
    public var scopes: Set<String>
    /// When the token expires.
    public var expiresAt: Date
    /// When the person signed in (`auth_time`), when they did.
    public var authenticatedAt: Date?
    /// The thumbprint of the DPoP key the token is bound to (`cnf.jkt`); `nil` for a bearer token.
    public var keyThumbprint: String?
    /// The clients acting for the subject (`act`, RFC 8693), most recent first; empty when none does.
    public var actors: [String]
    /// Whether the token was read offline (a JWT) or explained by introspection.
    public var format: Format

    /// How the token was checked.
    public enum Format: String, Sendable {
        /// A JWT access token (RFC 9068), checked against the issuer's keys.
        case jwt
        /// An opaque token, explained by introspection (RFC 7662).
        case opaque
    }

    /// A grant for `subject`.
    public init(
        subject: String, clientID: String, scopes: Set<String>, expiresAt: Date, authenticatedAt: Date? = nil, keyThumbprint: String? = nil,
        actors: [String] = [], format: Format
    ) {
        self.subject = subject
        self.clientID = clientID
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.authenticatedAt = authenticatedAt
        self.keyThumbprint = keyThumbprint
        self.actors = actors
        self.format = format
    }

    /// Whether the token carries `scope`.
    public func has(_ scope: String) -> Bool { scopes.contains(scope) }
}
