import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

/// The platform adapter's part that runs everywhere: the server's options read into the requests an authenticator
/// API takes, and its raw answer written back as WebAuthn's credential JSON. A stand-in plays the system.
@Suite("Platform passkey provider")
struct PlatformPasskeyProviderTests {
    actor StandIn: PlatformAuthenticator {
        var created: [PasskeyCreationRequest] = []
        var asserted: [PasskeyAssertionRequest] = []

        func register(_ request: PasskeyCreationRequest) async throws -> PasskeyRegistrationResult {
            created.append(request)
            return PasskeyRegistrationResult(
                credentialID: Data([1, 2, 3]), clientDataJSON: Data(#"{"type":"webauthn.create"}"#.utf8), attestationObject: Data([0xA0]),
                attachment: "platform")
        }

        func assert(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertionResult {
            asserted.append(request)
            return PasskeyAssertionResult(
                credentialID: Data([1, 2, 3]), clientDataJSON: Data(#"{"type":"webauthn.get"}"#.utf8), authenticatorData: Data([9, 9]),
                signature: Data([0x30, 0x06]), userHandle: Data([7]), attachment: "cross-platform")
        }
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("creation options become the request an authenticator takes; its answer becomes the registration JSON")
    func creation() async throws {
        let standIn = StandIn()
        let provider = PlatformPasskeyProvider(authenticator: standIn)
        let options = #"""
            {"attestation":"none","authenticatorSelection":{"requireResidentKey":true,"residentKey":"required","userVerification":"required"},
             "challenge":"AAEC","excludeCredentials":[{"id":"BAU","type":"public-key"}],"pubKeyCredParams":[{"alg":-7,"type":"public-key"}],
             "rp":{"id":"id.example.com","name":"Example"},"timeout":300000,"user":{"displayName":"Ada L","id":"_w","name":"ada"}}
            """#
        let json = try await provider.createPasskey(optionsJSON: options)
        let request = try #require(await standIn.created.first)
        #expect(request.relyingPartyID == "id.example.com" && request.challenge == Data([0, 1, 2]) && request.userID == Data([0xFF]))
        #expect(request.userName == "ada" && request.displayName == "Ada L" && request.excludedCredentialIDs == [Data([4, 5])])
        #expect(request.userVerification == "required" && request.residentKey == "required" && request.attestation == "none")
        let credential = try Self.object(json)
        #expect(credential["id"] as? String == "AQID" && credential["rawId"] as? String == "AQID" && credential["type"] as? String == "public-key")
        let response = try #require(credential["response"] as? [String: Any])
        #expect(response["attestationObject"] as? String == "oA" && response["transports"] as? [String] == ["internal", "hybrid"])
        #expect(Base64URL.decode(response["clientDataJSON"] as? String ?? "") == Data(#"{"type":"webauthn.create"}"#.utf8))
        #expect(credential["authenticatorAttachment"] as? String == "platform")
    }

    @Test("request options become the assertion request; the answer becomes the authentication JSON with its user handle")
    func assertion() async throws {
        let standIn = StandIn()
        let provider = PlatformPasskeyProvider(authenticator: standIn)
        let json = try await provider.usePasskey(
            optionsJSON: #"{"allowCredentials":[],"challenge":"AAEC","rpId":"id.example.com","timeout":300000,"userVerification":"preferred"}"#)
        let request = try #require(await standIn.asserted.first)
        #expect(
            request
                == PasskeyAssertionRequest(
                    relyingPartyID: "id.example.com", challenge: Data([0, 1, 2]), allowedCredentialIDs: [], userVerification: "preferred"))
        let response = try #require(try Self.object(json)["response"] as? [String: Any])
        #expect(response["authenticatorData"] as? String == "CQk" && response["signature"] as? String == "MAY" && response["userHandle"] as? String == "Bw")
    }

    @Test("options that are not WebAuthn's JSON, or hold values that are not base64url, are refused before the authenticator is asked")
    func malformed() async throws {
        let standIn = StandIn()
        let provider = PlatformPasskeyProvider(authenticator: standIn)
        await #expect(throws: GatehouseError.self) { _ = try await provider.usePasskey(optionsJSON: "{not json") }
        await #expect(throws: GatehouseError.self) { _ = try await provider.usePasskey(optionsJSON: #"{"challenge":"***","rpId":"x"}"#) }
        await #expect(throws: GatehouseError.self) { _ = try await provider.createPasskey(optionsJSON: #"{"challenge":"AAEC"}"#) }
        #expect(await standIn.asserted.isEmpty)
        #expect(await standIn.created.isEmpty)
    }
}

/// ``FlowModel`` answering a sign-in node's passkey: the provider's credential goes with the passkey action.
@Suite("Flow model passkeys")
@MainActor
struct FlowModelPasskeyTests {
    struct FixedProvider: PasskeyProvider {
        func createPasskey(optionsJSON: String) async throws -> String { #"{"made":true}"# }
        func usePasskey(optionsJSON: String) async throws -> String { #"{"used":"\#(optionsJSON.count)"}"# }
    }

    struct Cancelled: PasskeyProvider {
        struct Refusal: Error {}
        func createPasskey(optionsJSON: String) async throws -> String { throw Refusal() }
        func usePasskey(optionsJSON: String) async throws -> String { throw Refusal() }
    }

    static let signIn = FlowNode(
        id: "login.credentials", name: "Sign in", description: "Sign in to continue.", category: "sign_in",
        fields: [
            FlowField(key: "username", kind: .text, label: "Username", autocomplete: "username webauthn"),
            FlowField(key: "credential", kind: .passkeyGet, label: "Or sign in with a passkey.", required: false, defaultValue: #"{"challenge":"AA"}"#),
        ],
        actions: [FlowAction(id: "submit", kind: .submit, label: "Sign in"), FlowAction(id: "passkey", kind: .submit, label: "Sign in with a passkey")])

    @Test("the provider's credential is submitted with the passkey action; a cancelled provider leaves the step with a message")
    func usePasskey() async throws {
        let provider = MockProvider(firstNode: Self.signIn)
        let model = FlowModel(client: FlowTests.client(provider))
        await model.start()
        await model.usePasskey(with: Cancelled())
        #expect(model.step?.id == "login.credentials" && model.errorMessage?.hasPrefix("The passkey could not be used") == true)
        #expect(await provider.submissions.isEmpty)
        await provider.answer([(200, FlowTests.success())])
        await model.usePasskey(with: FixedProvider())
        let sent = try #require(await provider.submissions.first)
        #expect(sent.action == "passkey" && sent.values["credential"] == #"{"used":"18"}"#)
        #expect(model.user != nil && model.step == nil)
    }
}
