import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The SDK on a third-party client's consent node, against a live server: the node routes as
/// ``SignInStatus/consent`` with the application and scopes as data, and the multi-factor helper asks the app, never
/// answering by itself.
@Suite("SDK consent against a live server")
struct SDKConsentTests {
    /// Answers every consent with `allow`, recording what it was asked.
    actor Person {
        var asked: [FlowConsent] = []
        let allow: Bool

        init(allow: Bool) { self.allow = allow }

        func answer(_ step: MultifactorLogin.Step) -> MultifactorLogin.Answer {
            guard case .consent(let consent) = step else { return .done }
            asked.append(consent)
            return allow ? .allow : .deny
        }
    }

    /// `sam` and the SDK client of the third-party app `partner`.
    static func prepare(_ server: IdentityServer, issuer: URL) async throws -> GatehouseClient {
        let hash = try await server.hasher.hash(SDKLiveFlowTests.password)
        try await server.users.create(username: "sam", email: "sam@example.com", name: "Sam", passwordHash: hash)
        try await server.clients.create(
            id: "partner", name: "Partner", secret: nil, redirectURIs: ["com.partner.app:/cb"], scopes: ClientRegistrationRules.defaultScopes,
            thirdParty: true, homepage: "https://partner.example/")
        return GatehouseClient(
            configuration: GatehouseConfiguration(
                issuer: issuer, clientID: "partner", redirectURI: "com.partner.app:/cb", scopes: ["openid", "profile"],
                tokenStorage: MemoryTokenStorage()))
    }

    @Test("the consent node is a status of its own, with the application and scopes; Deny fails with access_denied")
    func nodeAndDeny() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            guard case .continue(var signIn) = await client.start() else { Issue.record("expected the sign-in node"); return }
            signIn["username"] = "sam"
            signIn["password"] = SDKLiveFlowTests.password
            guard case .continue(let consent) = await signIn.next() else { Issue.record("expected the consent node"); return }
            #expect(consent.status == .consent && consent.step == .consent)
            #expect(consent.consent?.application == FlowConsent.Application(id: "partner", name: "Partner", homepage: "https://partner.example/"))
            #expect(consent.consent?.scopes.map(\.name) == ["openid", "profile"])
            let deny = try #require(consent.submit(.deny))
            guard case .failure(let failure) = await consent.next(deny) else { Issue.record("Deny must end the flow"); return }
            #expect(failure.cause.oauthError == "access_denied")
        }
    }

    @Test("the multi-factor helper asks the app: Allow signs in, Deny fails, and allowed once it does not ask again")
    func helperAsks() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            let refusing = Person(allow: false)
            let denied = MultifactorLogin(client: client) { step in await refusing.answer(step) }
            await #expect(throws: GatehouseError.self) { try await denied.login(username: "sam", password: SDKLiveFlowTests.password) }
            #expect(await refusing.asked.map(\.application.id) == ["partner"])

            let allowing = Person(allow: true)
            let allowed = MultifactorLogin(client: client) { step in await allowing.answer(step) }
            let session = try await allowed.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await session.claims?.preferredUsername == "sam")
            _ = try await allowed.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await allowing.asked.count == 1, "allowed once, the second sign-in is not asked")
        }
    }
}
