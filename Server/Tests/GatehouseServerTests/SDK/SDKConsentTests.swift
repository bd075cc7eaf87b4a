import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The SDK in a third-party app, against a live server: the native flow API is for the service's own apps, so the app
/// gets the server's `unauthorized_client` (pointing to the browser) before any node, and the multi-factor helper never
/// reaches a consent it could answer in the person's name.
@Suite("SDK consent against a live server")
struct SDKConsentTests {
    /// Answers every consent with `allow`, recording what it was asked.
    actor Person {
        var asked: [FlowConsent] = []

        func answer(_ step: MultifactorLogin.Step) -> MultifactorLogin.Answer {
            guard case .consent(let consent) = step else { return .done }
            asked.append(consent)
            return .allow
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

    @Test("a third-party app is refused at the start with unauthorized_client, and the helper never asks for a consent")
    func refusedAtTheStart() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            let person = Person()
            let helper = MultifactorLogin(client: client) { step in await person.answer(step) }
            let error = await #expect(throws: GatehouseError.self) { try await helper.login(username: "sam", password: SDKLiveFlowTests.password) }
            #expect(error?.oauthError == "unauthorized_client")
            #expect(error.map { String(describing: $0) }?.contains("browser") == true, "the server's words point to the browser")
            #expect(await person.asked.isEmpty)
            let granted = try await server.audit.events(.init(types: [.consentGranted]), limit: 10)
            #expect(granted.isEmpty, "no consent was given in sam's name")
        }
    }
}
