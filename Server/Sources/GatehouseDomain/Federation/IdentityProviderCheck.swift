import Foundation
import GatehouseProtocol

/// What `gatehouse providers check` finds about a configured provider: its endpoints as Gatehouse will use them,
/// and whatever would make a sign-in there fail (discovery unreachable or inconsistent, no usable signing key,
/// a client key that cannot be read).
public struct IdentityProviderCheck: Sendable, Encodable {
    public var id: String
    public var kind: String
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userinfoEndpoint: String?
    public var jwksURI: String?
    /// The redirect URI to register at the provider.
    public var redirectURI: String
    /// What is wrong; empty when the provider is ready.
    public var problems: [String]

    /// Checks `provider` as a server at `issuer` would use it, fetching its discovery document and keys now.
    public static func run(_ provider: IdentityProvider, issuer: String) async -> IdentityProviderCheck {
        var check = IdentityProviderCheck(
            id: provider.id, kind: provider.kind.rawValue, redirectURI: issuer + "/login/idp/callback", problems: [])
        if let file = provider.privateKeyFile {
            do { _ = try ClientAssertionSigner(pemFile: file, keyID: provider.keyID) } catch { check.problems.append("\(error)") }
        }
        let endpoints: UpstreamEndpoints
        do {
            endpoints = try await UpstreamEndpoints.resolve(provider)
        } catch {
            check.problems.append(error.detail)
            return check
        }
        check.authorizationEndpoint = endpoints.authorization
        check.tokenEndpoint = endpoints.token
        check.userinfoEndpoint = endpoints.userinfo
        check.jwksURI = endpoints.jwks
        if provider.kind == .oidc, let jwks = endpoints.jwks {
            do {
                let keys = try await UpstreamKeySet(provider: provider, url: jwks).keySet(refresh: true).keys
                let usable = keys.filter { ($0.use ?? "sig") == "sig" && ["RSA", "EC"].contains($0.keyType) }
                if usable.isEmpty { check.problems.append("the key set at \(jwks) has no RSA or EC signing key") }
            } catch let error as FederationError {
                check.problems.append(error.detail)
            } catch {
                check.problems.append("\(error)")
            }
        }
        return check
    }

    package enum CodingKeys: String, CodingKey {
        case id, kind, problems
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case redirectURI = "redirect_uri"
    }
}
