import GatehouseFoundation

/// A set of rules a client is held to beyond Gatehouse's defaults. Today one: the FAPI 2.0 Security Profile, for
/// banking, health and government relying parties.
public enum SecurityProfile: String, Sendable, Codable, CaseIterable {
    /// FAPI 2.0 Security Profile (OpenID Foundation, final): every authorization request pushed (PAR) with PKCE S256;
    /// every token bound to the client's DPoP key; the client authenticated with `private_key_jwt`; JWTs signed with
    /// PS256, ES256 or EdDSA only (ID tokens ES256); https redirect URIs matched exactly; codes living at most 60
    /// seconds; `iss` in every authorization response (Gatehouse always sends it).
    case fapi2

    /// The JWS algorithms FAPI 2.0 allows (Security Profile §5.4.1): no RS256, no MACs.
    public static let fapi2Algorithms = ["PS256", "ES256", "EdDSA"]
    /// The longest a code of a FAPI 2.0 client lives (Security Profile §5.3.2.1).
    public static let fapi2CodeLifetime: Int64 = 60

    /// Why `client` cannot follow this profile, in words for the operator; `nil` when it can.
    public func violation(of client: Client) -> String? {
        switch self {
        case .fapi2:
            if client.authenticationMethod != .privateKeyJWT {
                return
                    "A FAPI 2.0 client authenticates with private_key_jwt (its keys: --jwks-uri or --jwks-file), not \(client.authenticationMethod.rawValue)."
            }
            if client.idTokenAlgorithm != "ES256" {
                return
                    "A FAPI 2.0 client's ID tokens are signed with PS256, ES256 or EdDSA, never \(client.idTokenAlgorithm); Gatehouse signs them ES256 "
                    + "(--id-token-alg ES256, or leave it out)."
            }
            if !client.requiresPKCE { return "A FAPI 2.0 client always sends PKCE." }
            if let uri = (client.redirectURIs + client.postLogoutRedirectURIs).first(where: { !$0.lowercased().hasPrefix("https://") }) {
                return "A FAPI 2.0 client's redirect URIs are https URLs; \(uri.prefix(80)) is not."
            }
            return nil
        }
    }

    /// `client` as this profile makes it: its requests pushed and its tokens DPoP-bound, whatever it was registered with.
    public func applied(to client: Client) -> Client {
        var held = client
        held.profile = self
        held.requiresPushedAuthorizationRequests = true
        held.requiresDPoP = true
        return held
    }
}
