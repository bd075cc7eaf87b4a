import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK with DPoP (RFC 9449) against a live server: a key per sign-in, proofs on the token endpoint and userinfo,
/// the server's nonce picked up with one retry, the key kept with the tokens across launches, and an app's own
/// request authorized with a proof the server accepts.
@Suite("SDK DPoP against a live server")
struct SDKDPoPTests {
    @Test("bound tokens: sign in, userinfo, refresh, restore, an app request; a stolen token alone is refused", arguments: [false, true])
    func boundSession(requireNonce: Bool) async throws {
        try await TestServer.withLiveServer(configure: { $0.dpop.requireNonce = requireNonce }) { server, issuer in
            let storage = MemoryTokenStorage()
            _ = try await SDKLiveFlowTests.prepare(server, issuer: issuer, storage: storage)
            var configuration = GatehouseConfiguration(issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb", tokenStorage: storage)
            configuration.dpop = SoftwareDPoPKeys()
            let client = GatehouseClient(configuration: configuration)
            let user = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let tokens = try #require(await user.currentTokens)
            #expect(tokens.tokenType == "DPoP")
            #expect(await user.isDPoPBound)
            let record = try #require(try await server.tokens.activeAccessToken(tokens.accessToken))
            #expect(record.jkt != nil)
            #expect(try await user.userinfo(cache: false).preferredUsername == "sam")
            let refreshed = try await user.refresh()
            #expect(refreshed.tokenType == "DPoP" && refreshed.accessToken != tokens.accessToken)

            // A later launch restores the key with the tokens; its proofs still match the binding.
            let restored = try #require(try await GatehouseClient(configuration: configuration).currentUser())
            #expect(try await restored.userinfo(cache: false).preferredUsername == "sam")
            // The app's own request to the provider's userinfo, authorized by the session and sent by URLSession.
            let request = try await restored.authorizedRequest(for: URLRequest(url: issuer.appendingPathComponent("userinfo")))
            #expect(request.value(forHTTPHeaderField: "Authorization")?.hasPrefix("DPoP ") == true)
            let (_, answer) = try await URLSession.shared.data(for: request)
            // With nonces on, the proof carries the nonce the session's own userinfo call learned (after one retry).
            #expect((answer as? HTTPURLResponse)?.statusCode == 200)

            // Without the key, the token is nothing: sent as a bearer token it is refused.
            var stolen = URLRequest(url: issuer.appendingPathComponent("userinfo"))
            stolen.setValue("Bearer \(refreshed.accessToken)", forHTTPHeaderField: "Authorization")
            let (_, refused) = try await URLSession.shared.data(for: stolen)
            #expect((refused as? HTTPURLResponse)?.statusCode == 401)
        }
    }
}
