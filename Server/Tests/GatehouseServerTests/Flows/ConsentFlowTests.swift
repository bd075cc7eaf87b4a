import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Consent for third-party clients, driven in-process through the flow engine and the consent store on both engines:
/// who is asked, for which scopes, what Allow and Deny lead to, and what revoking takes away.
@Suite("Consent")
struct ConsentFlowTests {
    static let owner = FlowStore.Owner.client("partner")

    /// `kim`, a third-party client `partner` and a first-party client `own`.
    static func prepare(_ server: IdentityServer) async throws -> User {
        try await server.clients.create(
            id: "partner", name: "Partner", secret: nil, redirectURIs: ["com.partner.app:/cb"], scopes: ClientRegistrationRules.defaultScopes,
            thirdParty: true, logoURI: "https://partner.example/logo.png", homepage: "https://partner.example/")
        try await server.clients.create(id: "own", secret: nil, redirectURIs: ["com.example.own:/cb"], scopes: ClientRegistrationRules.defaultScopes)
        return try await FlowJourneyTests.addUser(server)
    }

    /// Signs `kim` in with the password on a new flow of `client`; where that led, and the flow's id.
    static func signIn(
        _ server: IdentityServer, client: String = "partner", scopes: [String] = ["openid", "profile"], prompts: Set<String> = []
    ) async throws -> (String, LoginFlow.Outcome) {
        let redirect = client == "partner" ? "com.partner.app:/cb" : "com.example.own:/cb"
        let request = AuthorizationRequest(clientID: client, redirectURI: redirect, scopes: scopes, prompts: prompts)
        let started = try await server.loginFlow.begin(request, clientName: client, owner: .client(client))
        let state = try #require(try await server.flows.find(started.id, owner: .client(client)))
        let outcome = try await server.loginFlow.advance(
            started.id, state: state, action: "submit", values: ["username": "kim", "password": .text(FlowJourneyTests.password)])
        return (started.id, outcome)
    }

    /// Answers the consent node of the flow `id` with `action`.
    static func answer(_ server: IdentityServer, _ id: String, _ action: FlowActionID) async throws -> LoginFlow.Outcome {
        let state = try #require(try await server.flows.find(id, owner: owner))
        return try await server.loginFlow.advance(id, state: state, action: action.rawValue, values: [:])
    }

    static func consentNode(_ outcome: LoginFlow.Outcome) -> FlowNode? {
        if case .next(let node) = outcome, node.id == FlowStep.consent.rawValue { return node }
        return nil
    }

    @Test("a third-party client asks once; a first-party one never", arguments: TestEngine.available)
    func asksOnce(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await Self.prepare(server)
            #expect(try await Self.signIn(server, client: "own").1.signedIn != nil, "a first-party client does not ask")

            let (id, asked) = try await Self.signIn(server)
            let node = try #require(Self.consentNode(asked))
            #expect(node.category == FlowCategory.consent.rawValue)
            #expect(node.actions.map(\.id) == ["submit", "deny"])
            #expect(
                node.consent?.application
                    == FlowConsent.Application(
                        id: "partner", name: "Partner", logoURI: "https://partner.example/logo.png", homepage: "https://partner.example/"))
            #expect(node.consent?.scopes.map(\.name) == ["openid", "profile"])
            #expect(node.fields.map(\.label) == ["Know who you are", "See your name and username"])
            #expect(try await server.consents.find(userID: user.id, clientID: "partner") == nil, "nothing is allowed before Allow")

            let allowed = try await Self.answer(server, id, .submit)
            #expect(allowed.signedIn?.user.id == user.id && allowed.signedIn?.methods == ["pwd"])
            #expect(try await server.consents.find(userID: user.id, clientID: "partner")?.scopes == ["openid", "profile"])
            #expect(try await Self.signIn(server).1.signedIn != nil, "allowed once, not asked again")

            // More scopes ask only for the new one; prompt=consent asks for all again.
            let (wider, more) = try await Self.signIn(server, scopes: ["openid", "profile", "email"])
            #expect(Self.consentNode(more)?.consent?.scopes.map(\.name) == ["email"])
            #expect(try await Self.answer(server, wider, .submit).signedIn != nil)
            #expect(try await server.consents.find(userID: user.id, clientID: "partner")?.scopes == ["openid", "profile", "email"])
            let (_, forced) = try await Self.signIn(server, prompts: ["consent"])
            #expect(Self.consentNode(forced)?.consent?.scopes.map(\.name) == ["openid", "profile"])

            let kinds = try await server.audit.events(AuditLog.Filter(userID: user.id), limit: 50).map(\.type)
            #expect(kinds.filter { $0 == .consentGranted }.count == 2)
        }
    }

    @Test("Deny ends the flow with access_denied and allows nothing", arguments: TestEngine.available)
    func deny(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await Self.prepare(server)
            let (id, asked) = try await Self.signIn(server)
            #expect(Self.consentNode(asked) != nil)
            let denied = try await Self.answer(server, id, .deny)
            guard case .refused(let error, _) = denied else {
                Issue.record("expected a refusal, got \(denied)")
                return
            }
            #expect(error == "access_denied")
            #expect(try await server.flows.find(id, owner: Self.owner) == nil, "a denied flow is finished")
            #expect(try await server.consents.find(userID: user.id, clientID: "partner") == nil)
            let kinds = try await server.audit.events(AuditLog.Filter(userID: user.id), limit: 50).map(\.type)
            #expect(kinds.contains(.consentDenied) && !kinds.contains(.consentGranted))
        }
    }

    @Test("revoking a consent revokes the client's tokens for that person, and only those", arguments: TestEngine.available)
    func revoke(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await Self.prepare(server)
            try await server.consents.grant(["openid", "offline_access"], to: "partner", by: user.id)
            let lifetimes = TokenLifetimes()
            let partner = try await server.tokens.issue(
                for: Grant(id: "g1", clientID: "partner", userID: user.id, scopes: ["openid", "offline_access"], authTime: 1, methods: ["pwd"]),
                withRefreshToken: true, lifetimes: lifetimes)
            let own = try await server.tokens.issue(
                for: Grant(id: "g2", clientID: "own", userID: user.id, scopes: ["openid", "offline_access"], authTime: 1, methods: ["pwd"]),
                withRefreshToken: true, lifetimes: lifetimes)

            #expect(try await server.consents.revoke(clientID: "partner", of: user.id) == ["openid", "offline_access"])
            #expect(try await server.consents.revoke(clientID: "partner", of: user.id) == nil, "nothing left to revoke")
            let refreshed = try await server.tokens.refresh(
                try #require(partner.refreshToken), clientID: "partner", narrowedScopes: nil, lifetimes: lifetimes)
            guard case .invalid = refreshed else {
                Issue.record("the revoked client's refresh token still works: \(refreshed)")
                return
            }
            let kept = try await server.tokens.refresh(try #require(own.refreshToken), clientID: "own", narrowedScopes: nil, lifetimes: lifetimes)
            guard case .rotated = kept else {
                Issue.record("another client's refresh token was revoked too: \(kept)")
                return
            }
            // Deleting the account deletes what it allowed.
            try await server.consents.grant(["openid"], to: "partner", by: user.id)
            #expect(try await server.users.delete(username: "kim"))
            #expect(try await server.consents.list(of: user.id).isEmpty)
        }
    }
}
