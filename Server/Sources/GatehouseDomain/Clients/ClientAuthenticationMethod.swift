/// How a client proves itself at the token, PAR, introspection, revocation and device-authorization endpoints
/// (`token_endpoint_auth_method`, RFC 7591 §2, OpenID Connect Core §9).
public enum ClientAuthenticationMethod: String, Sendable, Codable, CaseIterable {
    /// A public client: it sends its `client_id` and nothing else (and always PKCE).
    case none
    /// Its secret in HTTP Basic. A secret client may also send the secret in the form: both carry the same secret.
    case clientSecretBasic = "client_secret_basic"
    /// Its secret in the form (`client_secret`); HTTP Basic works too.
    case clientSecretPost = "client_secret_post"
    /// An assertion MACed with its secret (HS256, HS384 or HS512; RFC 7523): the secret itself never travels. The
    /// server keeps the secret sealed under the server secret, since it must compute the MAC too.
    case clientSecretJWT = "client_secret_jwt"
    /// An assertion signed with one of its private keys, whose public keys it registered (`jwks`) or publishes
    /// (`jwks_uri`): no shared secret at all.
    case privateKeyJWT = "private_key_jwt"

    /// Whether the client holds a shared secret.
    public var usesSecret: Bool { self == .clientSecretBasic || self == .clientSecretPost || self == .clientSecretJWT }

    /// Whether the client authenticates with a signed or MACed assertion rather than by sending a secret.
    public var usesAssertion: Bool { self == .clientSecretJWT || self == .privateKeyJWT }

    /// The purpose under which the secrets of `client_secret_jwt` clients are sealed.
    package static let sealedSecretPurpose = "client secrets v1"
}
