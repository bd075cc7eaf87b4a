import Crypto
import Foundation
import Gatehouse
import GatehouseProtocol
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Native Sign in with Apple through the SDK against a live server, with a stand-in for Apple: a key set on loopback,
/// and a ``NativeIdentityProvider`` that signs ID tokens with its key as Apple's sheet would hand them to the app.
@Suite("SDK: signing in with a provider's own sign-in on the device")
struct SDKNativeSignInTests {
    static let appleIssuer = "https://appleid.apple.com"
    static let bundleID = "com.example.app"

    /// Apple, as far as Gatehouse can tell: the keys it publishes, and the tokens its sheet gives apps.
    struct AppleStandIn: Sendable {
        let key = P256.Signing.PrivateKey()
        let keyID = "apple-test-key"

        var keySet: JSONWebKeySet {
            let point = key.publicKey.x963Representation.dropFirst()
            return JSONWebKeySet(keys: [
                JSONWebKey(
                    keyType: "EC", keyID: keyID, algorithm: "ES256", curve: "P-256", x: Base64URL.encode(point.prefix(32)),
                    y: Base64URL.encode(point.suffix(32)))
            ])
        }

        /// An ID token as Apple signs it, claims overridden by `changes`; signed by `signer` (this stand-in's key unless said).
        func idToken(nonce: String, changes: [String: any Sendable] = [:], signer: P256.Signing.PrivateKey? = nil, keyID: String? = nil) throws -> String {
            let now = Int(Date().timeIntervalSince1970)
            var claims: [String: Any] = [
                "iss": SDKNativeSignInTests.appleIssuer, "aud": SDKNativeSignInTests.bundleID, "sub": "001234.apple.subject", "iat": now,
                "exp": now + 600, "nonce": nonce, "email": "ada@privaterelay.appleid.com", "email_verified": "true",
            ]
            for (name, value) in changes { claims[name] = value }
            let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID ?? self.keyID])
            let payload = try JSONSerialization.data(withJSONObject: claims)
            let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
            let signature = try (signer ?? key).signature(for: Data(input.utf8))
            return input + "." + Base64URL.encode(signature.rawRepresentation)
        }

        /// The app's side: the sheet, given the hashed nonce as Apple is; `changes` make the token a bad one.
        func sheet(
            changes: [String: any Sendable] = [:], signer: P256.Signing.PrivateKey? = nil, keyID: String? = nil, seen: LockedList? = nil
        )
            -> ClosureNativeIdentityProvider
        {
            ClosureNativeIdentityProvider { nonce in
                seen?.append(nonce)
                let token = try idToken(nonce: NativeIdentityCredential.hashedNonce(nonce), changes: changes, signer: signer, keyID: keyID)
                return NativeIdentityCredential(idToken: token, name: "Ada Lovelace")
            }
        }
    }

    /// A live Gatehouse whose provider `apple` takes tokens from the app `com.example.app`, its keys served by a stand-in.
    static func withApple(_ body: @escaping @Sendable (IdentityServer, URL, AppleStandIn) async throws -> Void) async throws {
        let apple = AppleStandIn()
        let router = Router()
        let keys = try JSONEncoder().encode(apple.keySet)
        router.get("/auth/keys") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: keys))) }
        try await Application(router: router).test(.live) { keyServer in
            let jwks = "http://127.0.0.1:\(keyServer.port ?? 0)/auth/keys"
            try await TestServer.withLiveServer { configuration in
                var provider = IdentityProvider(id: "apple", name: "Apple", issuer: Self.appleIssuer, clientID: "com.example.web", clientSecret: "web-secret")
                // Configured endpoints: nothing is discovered from the real Apple.
                provider.authorizationEndpoint = "https://appleid.apple.com/auth/authorize"
                provider.tokenEndpoint = "https://appleid.apple.com/auth/token"
                provider.jwksURI = jwks
                provider.trustEmail = true
                provider.native = true
                provider.nativeAudiences = [Self.bundleID]
                configuration.identityProviders = [provider]
            } _: { server, issuer in
                try await body(server, issuer, apple)
            }
        }
    }

    @Test("the sheet's token signs in and makes an account (the name Apple gave the app, the relay address verified); the node offers the nonce")
    func signsIn() async throws {
        try await Self.withApple { server, issuer, apple in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            guard case .continue(let first) = await client.start(), let offered = first.identityProviders.first else {
                Issue.record("expected the sign-in node to offer Apple")
                return
            }
            #expect(offered.takesAppTokens && offered.providerID == "apple")
            let login = MultifactorLogin(client: client) { _ in .done }
            let nonces = LockedList()
            let user = try await login.signIn(withProvider: "apple", native: apple.sheet(seen: nonces))
            let claims = await user.claims
            #expect(claims?.authenticationMethods == ["fed"] && claims?.name == "Ada Lovelace")
            let ada = try #require(try await server.users.find(usernameOrEmail: "ada@privaterelay.appleid.com"))
            #expect(ada.emailVerified && ada.name == "Ada Lovelace")
            #expect(try await server.federatedIdentities.identities(of: ada.id).map(\.providerID) == ["apple"])
            // Each flow has its own nonce; signing in again finds the same account.
            let again = try await login.signIn(withProvider: "apple", native: apple.sheet(seen: nonces))
            #expect(await again.claims?.subject == ada.id)
            #expect(nonces.items.count == 2 && nonces.items[0] != nonces.items[1] && nonces.items.allSatisfy { $0.count >= 32 })
        }
    }

    @Test(
        "refused: a token for another app, an expired one, another flow's (or a used) nonce, an unknown key, another issuer; a closed sheet is a cancellation")
    func refusals() async throws {
        try await Self.withApple { server, issuer, apple in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let login = MultifactorLogin(client: client) { _ in .done }
            let now = Int(Date().timeIntervalSince1970)
            let stranger = P256.Signing.PrivateKey()
            let bad: [(String, ClosureNativeIdentityProvider)] = [
                ("another app", apple.sheet(changes: ["aud": "com.evil.app"])),
                ("expired", apple.sheet(changes: ["exp": now - 3600, "iat": now - 7200])),
                ("another issuer", apple.sheet(changes: ["iss": "https://evil.example"])),
                ("unknown key", apple.sheet(signer: stranger, keyID: "not-apples")),
                ("a known key id, signed by another", apple.sheet(signer: stranger)),
                ("an empty nonce", apple.sheet(changes: ["nonce": ""])),
            ]
            for (what, sheet) in bad {
                do {
                    _ = try await login.signIn(withProvider: "apple", native: sheet)
                    Issue.record("a token with \(what) signed in")
                } catch GatehouseError.invalidInput(let messages) {
                    #expect(messages.first?.code == "idp_invalid_identity", "\(what)")
                } catch {
                    Issue.record("a token with \(what): \(error)")
                }
            }
            // A token made for one flow's nonce is refused in another, and in its own once handed in.
            guard case .continue(let first) = await client.start(), let provider = first.identityProviders.first,
                case .continue(let second) = await client.start(), let nonce = second.identityProviders.first?.action.nonce
            else {
                Issue.record("expected two sign-in nodes offering Apple")
                return
            }
            let otherFlows = try apple.idToken(nonce: NativeIdentityCredential.hashedNonce(nonce))
            let replayed = await first.next(
                signingInWith: provider, native: ClosureNativeIdentityProvider { _ in NativeIdentityCredential(idToken: otherFlows) })
            guard case .error(let refused) = replayed else {
                Issue.record("expected the other flow's token to be refused, got \(replayed)")
                return
            }
            #expect(refused.messages.first?.code == "idp_invalid_identity")
            let used = try #require(second.identityProviders.first)
            guard
                case .success = await second.next(
                    signingInWith: used, native: ClosureNativeIdentityProvider { _ in NativeIdentityCredential(idToken: otherFlows) })
            else {
                Issue.record("expected the token to sign in in its own flow")
                return
            }
            #expect(try await server.users.find(usernameOrEmail: "ada@privaterelay.appleid.com") != nil)
            // The nonce as it is (Google's SDK passes it so) is taken too; a refused token renewed the first flow's nonce.
            let raw = await refused.retry.next(
                signingInWith: provider, native: ClosureNativeIdentityProvider { nonce in NativeIdentityCredential(idToken: try apple.idToken(nonce: nonce)) })
            guard case .error(let stale) = raw else {
                Issue.record("expected the node's old nonce to be refused after a token was handed in, got \(raw)")
                return
            }
            #expect(stale.messages.first?.code == "idp_invalid_identity")
            guard case .continue(let fresh) = await client.start(), let freshProvider = fresh.identityProviders.first else { return }
            let plain = await fresh.next(
                signingInWith: freshProvider,
                native: ClosureNativeIdentityProvider { nonce in NativeIdentityCredential(idToken: try apple.idToken(nonce: nonce)) })
            guard case .success = plain else {
                Issue.record("expected the plain nonce to be taken, got \(plain)")
                return
            }
            // The person closes the sheet: a cancellation, the node as it was.
            await #expect(throws: GatehouseError.cancelled) {
                _ = try await login.signIn(withProvider: "apple", native: ClosureNativeIdentityProvider { _ in throw CancellationError() })
            }
            // Every refusal is audited as a failed sign-in with the provider named.
            let failures = try await server.audit.events(.init(types: [.signInFailed]), limit: 50)
            #expect(failures.filter { $0.details["provider"] == "apple" }.count >= bad.count + 2)
        }
    }
}
