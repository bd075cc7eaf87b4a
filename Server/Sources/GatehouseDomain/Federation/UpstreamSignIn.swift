import AsyncHTTPClient
import Foundation
import Gatehouse
import GatehouseFoundation
import GatehouseProtocol
import NIOCore

/// Gatehouse as a relying party of another identity provider: the authorization request it sends the browser to,
/// and the code it redeems when the browser comes back, ending in a validated ``UpstreamProfile``.
package struct UpstreamSignIn: Sendable {
    package let provider: IdentityProvider
    package let directory: UpstreamDirectory
    package let clock: UnixClock
    /// Gatehouse's one callback for every provider.
    package let redirectURI: String

    /// The provider's authorization URL for a sign-in with `state`, `nonce` (OpenID only) and the PKCE challenge of `verifier`.
    package func authorizationURL(state: String, nonce: String, verifier: String) async throws(FederationError) -> String {
        let endpoints = try await directory.endpoints(for: provider)
        var parameters: [(String, String?)] = [
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", redirectURI), ("scope", provider.scopes.joined(separator: " ")),
            ("state", state), ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", PKCE.method),
        ]
        if provider.kind == .oidc { parameters.append(("nonce", nonce)) }
        if let mode = provider.responseMode { parameters.append(("response_mode", mode)) }
        let separator = endpoints.authorization.contains("?") ? "&" : "?"
        return endpoints.authorization + separator + FormEncoding.encode(parameters)
    }

    /// Redeems `code` with `verifier`, validates what comes back, and reads the profile. `issuer` is the `iss` the
    /// browser brought back (RFC 9207), checked when the provider sends one. With `keep_tokens`, `seal` seals the
    /// provider's tokens into the profile; otherwise they are dropped here, used once.
    package func redeem(
        code: String, verifier: String, nonce: String, issuer: String?, seal: (Data) throws -> String
    ) async throws(FederationError)
        -> UpstreamProfile
    {
        let endpoints = try await directory.endpoints(for: provider)
        // A mix-up: an answer naming another provider than the one this sign-in went to.
        if let issuer, let expected = endpoints.issuer, !expected.contains("{"), issuer != expected {
            throw .invalidIdentity(provider.name, "the answer names the issuer \(issuer), not \(expected)")
        }
        if endpoints.returnsIssuer, issuer == nil { throw .invalidIdentity(provider.name, "the answer lacks iss, which the provider promises") }
        let tokens = try await exchange(code: code, verifier: verifier, at: endpoints.token)
        guard let accessToken = tokens["access_token"] as? String else { throw .tokenRefused(provider.name, "the token response has no access_token") }
        var claims: [String: Any] = [:]
        if provider.kind == .oidc {
            guard let idToken = tokens["id_token"] as? String else { throw .invalidIdentity(provider.name, "the token response has no id_token") }
            claims = try await validate(idToken, nonce: nonce, audience: provider.clientID, endpoints: endpoints)
        }
        if let userinfo = endpoints.userinfo {
            let profile = try await fetch(userinfo, bearer: accessToken)
            if provider.kind == .oidc {
                // OpenID Connect Core §5.3.2: the userinfo must be about the ID token's subject.
                guard profile["sub"] as? String == claims["sub"] as? String else {
                    throw .invalidIdentity(provider.name, "the userinfo subject differs from the ID token's")
                }
                for (key, value) in profile where !["iss", "aud", "sub", "amr", "acr", "nonce"].contains(key) { claims[key] = value }
            } else {
                claims = profile
            }
        }
        if let emails = provider.emailsEndpoint, claims[provider.claims.emailVerified] as? Bool != true {
            if let primary = try await verifiedEmail(from: emails, bearer: accessToken) {
                claims[provider.claims.email] = primary
                claims[provider.claims.emailVerified] = true
            }
        }
        guard var profile = UpstreamProfile(claims: claims, provider: provider) else {
            throw .invalidIdentity(provider.name, "the profile has no \(provider.claims.subject)")
        }
        if !provider.trustMFA { profile.methods = [] }
        if provider.keepTokens {
            let kept = tokens.filter { ["access_token", "refresh_token", "id_token", "expires_in", "scope", "token_type"].contains($0.key) }
            do {
                profile.sealedTokens = try seal(try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]))
            } catch {
                throw .tokenRefused(provider.name, "the tokens could not be sealed: \(error)")
            }
        }
        return profile
    }

    /// The profile in an ID token the app obtained from the provider itself (`native`): signed by a key of the
    /// provider's JWKS, from its issuer, for one of the ``IdentityProvider/acceptedNativeAudiences``, unexpired, and
    /// carrying the flow's single-use `nonce`, as it is or as its SHA-256 in hex (what Apple's sheet is given). `name`
    /// is what Apple handed the app alone, used where the token has none.
    package func verifyNative(idToken: String, nonce: String, name: String?) async throws(FederationError) -> UpstreamProfile {
        guard provider.native else { throw .invalidIdentity(provider.name, "the provider does not take tokens from apps") }
        guard idToken.utf8.count <= 16_384 else { throw .invalidIdentity(provider.name, "the ID token is too long") }
        let endpoints = try await directory.endpoints(for: provider)
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let unverified = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw .invalidIdentity(provider.name, "the ID token is not a JWS") }
        let audiences = (unverified["aud"] as? [String]) ?? [(unverified["aud"] as? String) ?? ""]
        guard let audience = provider.acceptedNativeAudiences.first(where: audiences.contains) else {
            throw .invalidIdentity(provider.name, "the ID token is for \(audiences.joined(separator: ", ")), not an app of this server")
        }
        var claims = try await validate(idToken, nonce: nil, audience: audience, endpoints: endpoints)
        guard let received = claims["nonce"] as? String,
            ConstantTime.equals(received, nonce) || ConstantTime.equals(received, TokenDigest.hex(nonce))
        else { throw .invalidIdentity(provider.name, "the ID token's nonce is not this sign-in's") }
        if claims[provider.claims.name] == nil, let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            claims[provider.claims.name] = String(name.prefix(200))
        }
        guard var profile = UpstreamProfile(claims: claims, provider: provider) else {
            throw .invalidIdentity(provider.name, "the profile has no \(provider.claims.subject)")
        }
        if !provider.trustMFA { profile.methods = [] }
        return profile
    }

    /// The token endpoint's answer to the code: a JSON object with the tokens.
    private func exchange(code: String, verifier: String, at endpoint: String) async throws(FederationError) -> [String: Any] {
        var form: [(String, String?)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        do {
            switch provider.clientAuthentication {
            case .clientSecretBasic:
                // RFC 6749 §2.3.1: each part form-encoded before joining.
                let pair = FormEncoding.encode(provider.clientID) + ":" + FormEncoding.encode(provider.clientSecret ?? "")
                request.headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
            case .clientSecretPost:
                form += [("client_id", provider.clientID), ("client_secret", provider.clientSecret ?? "")]
            case .privateKeyJWT:
                let signer = try ClientAssertionSigner(pemFile: provider.privateKeyFile ?? "", keyID: provider.keyID)
                form += [
                    ("client_id", provider.clientID), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", try signer.clientAssertion(clientID: provider.clientID, tokenEndpoint: endpoint, now: clock.now())),
                ]
            case .appleClientSecret:
                let signer = try ClientAssertionSigner(pemFile: provider.privateKeyFile ?? "", keyID: provider.keyID)
                form += [
                    ("client_id", provider.clientID),
                    ("client_secret", try signer.appleClientSecret(teamID: provider.teamID ?? "", clientID: provider.clientID, now: clock.now())),
                ]
            }
        } catch {
            throw .tokenRefused(provider.name, "the client assertion could not be signed: \(error)")
        }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let (status, answer) = try await UpstreamHTTP(provider: provider).json(request) { .tokenRefused(provider.name, $0) }
        guard status == 200, answer["error"] == nil else {
            throw .tokenRefused(provider.name, "HTTP \(status): \(answer["error"] as? String ?? "") \(answer["error_description"] as? String ?? "")")
        }
        return answer
    }

    /// The ID token's claims, once valid: signature by a key of the provider's JWKS with RS256 or ES256 (never `none`
    /// or a MAC), `iss`, `aud` (`audience`) and `azp`, `exp`, `iat` and, when given, the `nonce` of this sign-in.
    private func validate(
        _ idToken: String, nonce: String?, audience: String, endpoints: UpstreamEndpoints
    ) async throws(FederationError)
        -> [String: Any]
    {
        guard let jwks = endpoints.jwks, var issuer = endpoints.issuer ?? provider.issuer else {
            throw .invalidIdentity(provider.name, "no key set or issuer is known")
        }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw .invalidIdentity(provider.name, "the ID token is not a JWS") }
        if issuer.contains("{tenantid}") {
            // Multi-tenant issuers name the user's tenant; the signature check below still applies to the whole token.
            guard let tenant = claims["tid"] as? String, tenant.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
                throw .invalidIdentity(provider.name, "the ID token has no tenant id")
            }
            issuer = issuer.replacingOccurrences(of: "{tenantid}", with: tenant)
        }
        let keys = await directory.keySet(for: provider, url: jwks)
        let validator = IDTokenValidator(issuer: issuer, clientID: audience, keys: keys)
        do {
            _ = try await validator.validate(idToken, nonce: nonce, now: Date(timeIntervalSince1970: TimeInterval(clock.now())))
        } catch let error as FederationError {
            throw error
        } catch {
            throw .invalidIdentity(provider.name, "ID token: \(error)")
        }
        return claims
    }

    private func fetch(_ url: String, bearer: String) async throws(FederationError) -> [String: Any] {
        let (status, profile) = try await UpstreamHTTP(provider: provider).json(UpstreamHTTP.get(url, bearer: bearer)) {
            .invalidIdentity(provider.name, $0)
        }
        guard status == 200 else { throw .invalidIdentity(provider.name, "\(url) answered HTTP \(status)") }
        return profile
    }

    /// The primary verified address from a GitHub-shaped list (`[{"email", "primary", "verified"}]`), else any verified one.
    private func verifiedEmail(from url: String, bearer: String) async throws(FederationError) -> String? {
        let (status, body) = try await UpstreamHTTP(provider: provider).send(UpstreamHTTP.get(url, bearer: bearer))
        guard status == 200, let list = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] else { return nil }
        let verified = list.filter { $0["verified"] as? Bool == true }
        return (verified.first { $0["primary"] as? Bool == true } ?? verified.first)?["email"] as? String
    }

    package init(provider: IdentityProvider, directory: UpstreamDirectory, clock: UnixClock, redirectURI: String) {
        self.provider = provider
        self.directory = directory
        self.clock = clock
        self.redirectURI = redirectURI
    }
}
