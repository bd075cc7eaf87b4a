import Foundation
import Gatehouse
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// ID tokens of configured identity providers, as token exchange's subject tokens (RFC 8693): checked like a sign-in's
/// (the provider's keys, its issuer, the audience Gatehouse has there, expiry) and mapped to the account the identity
/// is linked to.
struct UpstreamSubjectTokens: Sendable {
    let providers: [IdentityProvider]
    let directory: UpstreamDirectory
    let identities: FederatedIdentityStore
    let clock: UnixClock

    /// The account `idToken` names and its claims, when its issuer is among `allowedIssuers` and a configured provider;
    /// `nil` when its issuer is neither (the caller then tries its own). Throws `invalid_grant` for a token that fails
    /// its checks or whose identity is linked to no account.
    func account(for idToken: String, allowedIssuers: [String]) async throws -> (userID: String, claims: Gatehouse.IDTokenClaims)? {
        guard let issuer = CompactJWS(idToken)?.payload["iss"] as? String, allowedIssuers.contains(issuer),
            let provider = providers.first(where: { $0.issuer == issuer })
        else { return nil }
        let claims: Gatehouse.IDTokenClaims
        do {
            let endpoints = try await directory.endpoints(for: provider)
            guard let jwks = endpoints.jwks else { throw OAuthError.invalidGrant("\(provider.name) publishes no keys.") }
            let validator = IDTokenValidator(issuer: issuer, clientID: provider.clientID, keys: await directory.keySet(for: provider, url: jwks))
            claims = try await validator.validate(idToken, nonce: nil, now: Date(timeIntervalSince1970: TimeInterval(clock.now())))
        } catch let error as OAuthError {
            throw error
        } catch {
            throw OAuthError.invalidGrant("The ID token of \(provider.name) is not valid: \(error).")
        }
        guard let userID = try await identities.account(provider: provider.id, subject: claims.subject) else {
            throw OAuthError.invalidGrant("The \(provider.name) identity is linked to no account here.")
        }
        return (userID, claims)
    }
}
