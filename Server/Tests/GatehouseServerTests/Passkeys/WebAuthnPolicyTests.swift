import Foundation
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

/// The `webauthn` section: the relying party derived from the issuer, and the settings a browser would refuse.
@Suite("Passkey configuration")
struct WebAuthnPolicyTests {
    static func load(_ json: String, issuer: String) throws -> ServerConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(json.utf8).write(to: file)
        return try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: [.issuer: issuer])
    }

    @Test("by default the relying party is the issuer's host and origin; an issuer on an IP address has none")
    func defaults() throws {
        let https = try Self.load("{}", issuer: "https://id.example.com")
        let party = try #require(https.webAuthn.relyingParty(issuer: https.resolvedIssuer))
        #expect(party.id == "id.example.com" && party.origins == ["https://id.example.com"] && party.userVerification == .preferred)
        let local = try Self.load("{}", issuer: "http://localhost:8080")
        #expect(local.webAuthn.relyingParty(issuer: local.resolvedIssuer)?.origins == ["http://localhost:8080"])
        let loopback = try Self.load("{}", issuer: "http://127.0.0.1:8080")
        #expect(loopback.webAuthn.relyingParty(issuer: loopback.resolvedIssuer) == nil)
    }

    @Test("a parent domain as rp_id, more origins under it, and the requirements are taken as written")
    func configured() throws {
        let configuration = try Self.load(
            #"{"webauthn": {"rp_id": "example.com", "origins": ["https://id.example.com", "https://app.example.com"], "user_verification": "required", "attestation": "direct", "require_attestation": true, "timeout": 120, "counter_regression": "warn"}}"#,
            issuer: "https://id.example.com")
        let party = try #require(configuration.webAuthn.relyingParty(issuer: configuration.resolvedIssuer))
        #expect(party.id == "example.com" && party.origins.count == 2 && party.userVerification == .required && !party.refuseCounterRegression)
        #expect(configuration.webAuthn.attestation == .direct && configuration.webAuthn.requireAttestation && configuration.webAuthn.timeout == 120)
    }

    @Test(
        "settings a browser would refuse are refused with their key",
        arguments: [
            (#"{"webauthn": {"rp_id": "10.0.0.1"}}"#, "webauthn.rp_id"),
            (#"{"webauthn": {"rp_id": "other.example.org"}}"#, "webauthn.rp_id"),
            (#"{"webauthn": {"origins": ["http://id.example.com"]}}"#, "webauthn.origins"),
            (#"{"webauthn": {"origins": ["https://id.example.com/login"]}}"#, "webauthn.origins"),
            (#"{"webauthn": {"origins": ["https://evil.example.org"]}}"#, "webauthn.origins"),
            (#"{"webauthn": {"timeout": 5}}"#, "webauthn.timeout"),
            (#"{"webauthn": {"require_attestation": true}}"#, "webauthn.require_attestation"),
            (#"{"webauthn": {"user_verification": "always"}}"#, "webauthn.user_verification"),
            (#"{"webauthn": {"rpid": "example.com"}}"#, "webauthn.rpid"),
        ])
    func refused(json: String, key: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.load(json, issuer: "https://id.example.com") }
        #expect(error?.key == key, "\(error?.description ?? "")")
    }
}
