/// What a client may get by exchanging someone's token (RFC 8693): none of it unless an operator says so. Kept on
/// the client (`token_exchange` in the admin API).
public struct TokenExchangePolicy: Sendable, Codable, Equatable {
    /// The resources (their identifiers) it may ask for a token for.
    public var audiences: [String]
    /// The scopes the new token may carry; empty for any the subject token has and the resource accepts. A token
    /// exchanged for an ID token (which carries no scope) gets only scopes listed here.
    public var scopes: [String]
    /// Whether the new token says the client acts for the person (`act`, delegation): the default.
    public var delegation: Bool
    /// Whether it may get a token that does not say so (impersonation); audited as such.
    public var impersonation: Bool
    /// Other issuers whose ID tokens it may exchange: configured identity providers (their `issuer`), for the account
    /// their identity is linked to. This server's own tokens are always accepted.
    public var subjectIssuers: [String]

    /// A policy for `audiences`; delegation only unless said otherwise.
    public init(audiences: [String], scopes: [String] = [], delegation: Bool = true, impersonation: Bool = false, subjectIssuers: [String] = []) {
        self.audiences = audiences
        self.scopes = scopes
        self.delegation = delegation
        self.impersonation = impersonation
        self.subjectIssuers = subjectIssuers
    }

    package enum CodingKeys: String, CodingKey {
        case audiences, scopes, delegation, impersonation
        case subjectIssuers = "subject_issuers"
    }

    /// Members left out take the defaults: no scopes listed, delegation, no impersonation.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        audiences = try container.decode([String].self, forKey: .audiences)
        scopes = try container.decodeIfPresent([String].self, forKey: .scopes) ?? []
        delegation = try container.decodeIfPresent(Bool.self, forKey: .delegation) ?? true
        impersonation = try container.decodeIfPresent(Bool.self, forKey: .impersonation) ?? false
        subjectIssuers = try container.decodeIfPresent([String].self, forKey: .subjectIssuers) ?? []
    }
}
