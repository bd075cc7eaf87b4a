import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Flows in the SDK (mock transport)")
struct FlowTests {
    static let credentials = FlowNode(
        id: "login.credentials", name: "Sign in", description: "Sign in to continue.", category: "sign_in",
        fields: [
            FlowField(key: "username", kind: .text, label: "Username", validation: FieldValidation(maxLength: 8), autocomplete: "username"),
            FlowField(key: "password", kind: .password, label: "Password"),
        ],
        actions: [FlowAction(id: "submit", kind: .submit, label: "Sign in")]
    )

    static let everyKind = FlowNode(
        id: "profile.details", name: "Details", description: "Tell us more.", category: "registration",
        fields: [
            FlowField(key: "intro", kind: .label, label: "Almost done."),
            FlowField(key: "otpauth", kind: .qrCode, label: "Scan it.", required: false, defaultValue: "otpauth://totp/x:y?secret=AB"),
            FlowField(key: "name", kind: .text, label: "Name", validation: FieldValidation(minLength: 2, maxLength: 20), defaultValue: "Al"),
            FlowField(key: "secret", kind: .password, label: "Password", validation: FieldValidation(minLength: 8, message: "At least 8 characters.")),
            FlowField(key: "phone", kind: .phoneNumber, label: "Phone", validation: FieldValidation(regex: #"\+[1-9][0-9]{6,14}"#)),
            FlowField(key: "code", kind: .oneTimeCode, label: "Code", validation: FieldValidation(regex: "[0-9]{6}")),
            FlowField(
                key: "factor", kind: .singleChoice, label: "Factor",
                options: [FieldOption(value: "email", label: "Email"), FieldOption(value: "sms", label: "SMS")]),
            FlowField(
                key: "topics", kind: .multipleChoice, label: "Topics", required: false,
                options: [FieldOption(value: "news", label: "News"), FieldOption(value: "tips", label: "Tips")]),
            FlowField(key: "credential", kind: .passkeyGet, label: "Use your passkey", defaultValue: #"{"challenge":"Y2g"}"#),
        ],
        actions: [
            FlowAction(id: "submit", kind: .submit, label: "Continue"), FlowAction(id: "forgot", kind: .link, label: "Forgot password?", flow: "recovery"),
            FlowAction(id: "idp:corp", kind: .idp, label: "Sign in with Corp", url: "https://id.example/flows/f/idp/corp", icon: "https://id.example/corp.svg"),
        ]
    )

    static func success(state: String = "from-request", issuer: String = MockProvider.issuer) -> FlowResponse {
        FlowResponse(status: .success, authorization: FlowAuthorization(code: "code-1", state: state, issuer: issuer, redirectURI: "com.example.app:/cb"))
    }

    static func client(_ provider: MockProvider, storage: MemoryTokenStorage = MemoryTokenStorage()) -> GatehouseClient {
        GatehouseClient(
            configuration: GatehouseConfiguration(
                issuer: URL(string: MockProvider.issuer)!, clientID: "app", redirectURI: "com.example.app:/cb",
                transport: provider, tokenStorage: storage))
    }

    @Test("collectors are typed from the node and check themselves with the server's rules before anything is sent")
    func collectors() async throws {
        let provider = MockProvider(firstNode: Self.everyKind)
        guard case .continue(var node) = await Self.client(provider).start() else { Issue.record("expected a continue node"); return }
        let kinds = node.collectors.map { collector -> String in
            switch collector {
            case .label: "label"
            case .qrCode(let code): "qr:\(code.content)"
            case .text: "text"
            case .password: "password"
            case .phoneNumber: "phone"
            case .oneTimeCode: "code"
            case .singleChoice: "single"
            case .multipleChoice: "multiple"
            case .passkey(let passkey): "passkey:\(passkey.ceremony):\(passkey.optionsJSON)"
            case .submit: "submit"
            case .flowLink: "link"
            case .idp(let provider): "idp:\(provider.providerID)"
            }
        }
        #expect(
            kinds == [
                "label", "qr:otpauth://totp/x:y?secret=AB", "text", "password", "phone", "code", "single", "multiple",
                #"passkey:get:{"challenge":"Y2g"}"#, "submit", "link", "idp:corp",
            ])
        #expect(node.identityProviders.map(\.url?.absoluteString) == ["https://id.example/flows/f/idp/corp"])
        #expect(node.identityProviders.first?.iconURL?.host == "id.example" && node.identityProviders.first?.label == "Sign in with Corp")
        #expect(node["name"] == "Al" && node.links.map(\.flow) == ["recovery"] && node.submit?.label == "Continue")

        node["secret"] = "short"
        node["phone"] = "555-0100"
        node["code"] = "12345"
        node["factor"] = "pigeon"
        node["topics"] = "news,gossip"
        #expect(Set(node.problems.compactMap(\.field)) == ["secret", "phone", "code", "factor", "topics", "credential"])
        #expect(node.problems.first { $0.field == "secret" }?.text == "At least 8 characters.")
        guard case .error(let refused) = await node.next() else { Issue.record("expected an error node"); return }
        #expect(refused.error == .invalidInput(node.problems))
        #expect(refused.retry["phone"] == "555-0100" && refused.retry["secret"] == "")  // typed values kept, secrets not
        #expect(await provider.submissions.isEmpty)  // checked on the device: nothing was sent

        node["secret"] = "long enough"
        node["phone"] = "+14155550100"
        node["code"] = "123456"
        node["factor"] = "sms"
        node["topics"] = "news,tips"
        node["credential"] = #"{"id":"Y3JlZA","type":"public-key"}"#
        #expect(node.problems.isEmpty)
        await provider.answer([(200, Self.success())])
        guard case .success = await node.next() else { Issue.record("expected success"); return }
        let sent = try #require(await provider.submissions.first)
        #expect(sent.action == "submit" && sent.clientID == "app")
        #expect(
            sent.values == [
                "name": "Al", "secret": "long enough", "phone": "+14155550100", "code": "123456", "factor": "sms",
                "topics": ["news", "tips"], "credential": #"{"id":"Y3JlZA","type":"public-key"}"#,
            ])
    }

    @Test("typed text never holds a control character, whatever the field's own rules; a password may")
    func controlCharacters() {
        let username = FlowField(key: "username", kind: .text, label: "Username", validation: FieldValidation(maxLength: 256))
        for typed in ["eve\nsign_in.succeeded alice", "eve\u{1B}[2J", "eve\r", "eve\u{7F}", "eve\u{85}", "eve\t"] {
            #expect(username.problem(with: .text(typed)) == "Username cannot contain line breaks or other control characters.", "\(typed.debugDescription)")
        }
        #expect(username.problem(with: .text("Zoë Ünal-O'Brien 日本")) == nil)
        let code = FlowField(key: "code", kind: .oneTimeCode, label: "Code")
        #expect(code.problem(with: .text("12\n3456")) != nil)
        let password = FlowField(key: "password", kind: .password, label: "Password")
        #expect(password.problem(with: .text("tab\tinside")) == nil)
    }

    @Test("an error node carries the typed reason and the node to retry; a retry can succeed")
    func errorThenRetry() async throws {
        let provider = MockProvider(firstNode: Self.credentials)
        let again = Self.credentials.with(messages: [FlowMessage(level: .error, text: "The username or password is incorrect.", code: "invalid_credentials")])
        await provider.answer([(200, FlowResponse(status: .error, flowID: "flow-1", node: again)), (200, Self.success())])
        guard case .continue(var node) = await Self.client(provider).start() else { Issue.record("expected a continue node"); return }
        node["username"] = "alice"
        node["password"] = "wrong"
        guard case .error(let error) = await node.next() else { Issue.record("expected an error node"); return }
        #expect(error.error == .invalidCredentials && error.message == "The username or password is incorrect.")
        var retry = error.retry
        #expect(retry.id == "login.credentials")
        retry["username"] = "alice"
        retry["password"] = "right"
        guard case .success(let success) = await retry.next() else { Issue.record("expected success"); return }
        #expect(success.claims.subject == "user-1")
    }

    @Test("success exchanges the code with the PKCE verifier, validates the ID token and stores the tokens")
    func success() async throws {
        let provider = MockProvider(firstNode: Self.credentials)
        await provider.answer([(200, Self.success())])
        let storage = MemoryTokenStorage()
        let client = Self.client(provider, storage: storage)
        let user = try await client.login(username: "alice", password: "pw")
        let started = try #require(await provider.started)
        #expect(started.codeChallengeMethod == "S256" && started.loginHint == "alice" && started.nonce != nil && started.state != nil)
        #expect(PKCE.challenge(for: try #require(await provider.exchangedVerifier)) == started.codeChallenge)
        #expect(await user.claims?.subject == "user-1")
        #expect(try await user.accessToken() == "at-1")
        let restored = try #require(try await client.currentUser())
        #expect(await restored.currentTokens?.refreshToken == "rt-1")
    }

    @Test("a wrong nonce, or a code from another issuer or for another state, fails the flow")
    func refusedAuthorization() async throws {
        let provider = MockProvider(firstNode: Self.credentials)
        await provider.setTokenNonce("someone else's nonce")
        await provider.answer([(200, Self.success())])
        await #expect(throws: GatehouseError.invalidIDToken(.nonceMismatch)) {
            try await Self.client(provider).login(username: "alice", password: "pw")
        }
        await provider.setTokenNonce(nil)
        for answer in [Self.success(issuer: "https://evil.example.com"), Self.success(state: "forged")] {
            await provider.answer([(200, answer)])
            do {
                _ = try await Self.client(provider).login(username: "alice", password: "pw")
                Issue.record("the sign-in should have been refused")
            } catch {
                guard case .invalidIDToken = error else { Issue.record("unexpected cause \(error)"); continue }
            }
        }
    }

    @Test("a consent node, as the server writes it, routes as consent with the application and scopes as data")
    func consentNode() async throws {
        let wire = #"""
            {"id":"consent","name":"Allow Partner access?","description":"It asks to:","category":"consent",
             "fields":[{"key":"scope.email","type":"label","label":"See your email address","required":false}],
             "actions":[{"id":"submit","type":"submit","label":"Allow"},{"id":"deny","type":"submit","label":"Deny"}],"messages":[],
             "consent":{"application":{"id":"partner","name":"Partner","logo_uri":"https://partner.example/logo.png",
                                       "client_uri":"https://partner.example/"},
                        "scopes":[{"name":"email","description":"See your email address"}]}}
            """#
        let node = try JSONDecoder().decode(FlowNode.self, from: Data(wire.utf8))
        #expect(node.step == .consent && node.knownCategory == .consent)
        #expect(
            node.consent
                == FlowConsent(
                    application: .init(id: "partner", name: "Partner", logoURI: "https://partner.example/logo.png", homepage: "https://partner.example/"),
                    scopes: [.init(name: "email", description: "See your email address")]))
        let provider = MockProvider(firstNode: node)
        guard case .continue(let step) = await Self.client(provider).start() else { Issue.record("expected the consent node"); return }
        #expect(step.status == .consent && step.consent == node.consent)
        #expect(step.submit?.label == "Allow" && step.submit(.deny)?.label == "Deny")
        // Written back, the keys are the wire's.
        let written = try #require(String(data: try JSONEncoder().encode(node), encoding: .utf8))
        #expect(written.contains(#""logo_uri":"https:\/\/partner.example\/logo.png""#) && written.contains(#""client_uri""#))
    }

    @Test("an expired flow, a network failure and an unanswerable step are typed, readable errors")
    func failures() async throws {
        let provider = MockProvider(firstNode: Self.credentials)
        await provider.answer([(404, FlowResponse(status: .failure, failure: OAuthErrorResponse(error: "flow_expired", errorDescription: "Start again.")))])
        await #expect(throws: GatehouseError.flowExpired) { try await Self.client(provider).login(username: "alice", password: "pw") }

        await provider.setFailNetwork(true)
        guard case .failure(let offline) = await Self.client(provider).start() else { Issue.record("expected a failure node"); return }
        #expect(offline.cause == .network("connection refused"))
        // The error underneath is kept for logs and retry decisions.
        guard case .network(let cause) = offline.cause else { Issue.record("expected a network error"); return }
        #expect((cause.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(offline.cause.description.contains("could not be reached"))
        // A request cancelled under it (URLSession's -999 when the app cancels the task) is a cancellation, not a fault.
        struct CancelledRequests: HTTPTransport {
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) { throw URLError(.cancelled) }
        }
        let cancelled = GatehouseClient(
            configuration: GatehouseConfiguration(
                issuer: URL(string: MockProvider.issuer)!, clientID: "app", redirectURI: "com.example.app:/cb", transport: CancelledRequests()))
        guard case .failure(let stopped) = await cancelled.start() else { Issue.record("expected a failure node"); return }
        #expect(stopped.cause == .cancelled)

        let otp = MockProvider(firstNode: Self.everyKind)
        await #expect(throws: GatehouseError.unsupportedStep("profile.details")) {
            try await Self.client(otp).login(username: "alice", password: "a secret password")
        }
        // No error description carries what the user typed.
        for error in [GatehouseError.invalidCredentials, .throttled, .locked, .flowExpired, .unsupportedStep("x")] {
            #expect(!error.description.contains("a secret password"))
        }
    }
}
