import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// Step-up with the SDK against a live server whose policy asks for no second factor: a password sign-in's session
/// knows it met only `pwd`, and `stepUp()` signs the same person in again with the authenticator app's code, replacing
/// the tokens of the session everyone holds (and revoking the weaker sign-in's refresh token).
@Suite("SDK step-up against a live server")
struct SDKStepUpTests {
    @Test("password session, then a step-up with TOTP replaces its tokens; someone else's step-up leaves it as it was")
    func stepUp() async throws {
        try await TestServer.withLiveServer(configure: { $0.signOn.secondFactor = .off }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let sam = try #require(try await server.users.find(username: "sam"))
            let generator = AuthenticatorStore.newTOTP()
            let now = server.clock.now()
            try await server.authenticators.addTOTP(userID: sam.id, generator, usedStep: generator.step(at: now) - 2)
            let hash = try await server.hasher.hash(SDKLiveFlowTests.password)
            try await server.users.create(username: "eve", email: "eve@example.com", name: "Eve", passwordHash: hash)

            let user = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await user.amr == ["pwd"])
            #expect(await user.acr != UserSession.multiFactorACR)
            let before = try #require(await user.currentTokens)

            /// Fills whatever the step-up asks: the username (pre-filled by the hint), the password, the code.
            func drive(_ first: Node, as username: String) async -> Node {
                var node = first
                for _ in 0..<6 {
                    guard case .continue(var step) = node else { return node }
                    for collector in step.collectors {
                        switch collector {
                        case .text(let text): step[text.key] = username
                        case .password(let secret): step[secret.key] = SDKLiveFlowTests.password
                        case .oneTimeCode(let code): step[code.key] = generator.code(at: server.clock.now())
                        case .singleChoice(let choice): step[choice.key] = choice.options.first { $0.value == "totp" }?.value ?? choice.options[0].value
                        default: break
                        }
                    }
                    node = await step.next()
                }
                return node
            }

            let stepped = await drive(await user.stepUp(), as: "sam")
            guard case .success(let success) = stepped else { Issue.record("expected success, got \(stepped)"); return }
            #expect(success.user === user, "the session everyone holds is the one that stepped up")
            #expect(await user.acr == UserSession.multiFactorACR)
            #expect(await user.amr.contains("otp"))
            let after = try #require(await user.currentTokens)
            #expect(after.accessToken != before.accessToken)
            #expect(try await server.tokens.activeRefreshToken(try #require(before.refreshToken)) == nil, "the weaker refresh token is revoked")
            let restored = try #require(try await client.currentUser())
            #expect(await restored.currentTokens == after, "the stepped-up tokens are the stored ones")

            // Eve cannot step up Sam's session: the sign-in fails and Sam's tokens stay.
            let hijack = await drive(await user.stepUp(acrValues: ["urn:gatehouse:acr:password"]), as: "eve")
            guard case .failure(let failure) = hijack else { Issue.record("expected failure, got \(hijack)"); return }
            #expect(failure.cause.oauthError == "wrong_user")
            #expect(await user.currentTokens == after)
            let eve = try #require(try await server.users.find(username: "eve"))
            #expect(try await server.activeSessions.grants(of: eve.id).isEmpty, "the tokens of the refused step-up are revoked")
        }
    }

    @Test("native start options: prompt=login and max_age go with the request and auth_time is checked; prompt=none is refused")
    func startOptions() async throws {
        try await TestServer.withLiveServer(configure: { $0.signOn.secondFactor = .off }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            guard case .continue(var step) = await client.start(loginHint: "sam", maxAge: 120, prompt: ["login"]) else {
                Issue.record("expected the sign-in step")
                return
            }
            for collector in step.collectors {
                if case .password(let secret) = collector { step[secret.key] = SDKLiveFlowTests.password }
                if case .text(let text) = collector { step[text.key] = "sam" }
            }
            guard case .success(let success) = await step.next() else {
                Issue.record("expected to be signed in")
                return
            }
            let authTime = try #require(success.claims.authTime)
            #expect(abs(authTime.timeIntervalSinceNow) < 60)

            guard case .failure(let refused) = await client.start(prompt: ["none"]) else {
                Issue.record("expected prompt=none to be refused")
                return
            }
            #expect(refused.cause.oauthError == "invalid_request")
            #expect("\(refused.cause)".contains("prompt=none cannot be met"))
            // Unknown prompt values get the authorization endpoint's own answer.
            guard case .failure(let unknown) = await client.start(prompt: ["sometimes"]) else {
                Issue.record("expected an unknown prompt value to be refused")
                return
            }
            #expect(unknown.cause.oauthError == "invalid_request")
        }
    }
}
