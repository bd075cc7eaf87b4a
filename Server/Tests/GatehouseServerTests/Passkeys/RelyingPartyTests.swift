import CBOR
import Crypto
import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The WebAuthn ceremonies' checks (Level 3 §7.1, §7.2) against the spec's test vectors, and each check failing
/// where it must.
@Suite("WebAuthn relying party")
struct RelyingPartyTests {
    static let party = RelyingParty(id: WebAuthnTestVector.rpID, origins: [WebAuthnTestVector.origin])

    static func register(_ vector: WebAuthnTestVector, with party: RelyingParty = party) throws(WebAuthnError) -> RelyingParty.Registration {
        try party.verifyRegistration(
            clientDataJSON: [UInt8](hex: vector.registrationClientData), attestationObject: [UInt8](hex: vector.attestationObject),
            challenge: [UInt8](hex: vector.registrationChallenge))
    }

    static func stored(_ registration: RelyingParty.Registration, signCount: UInt32? = nil) -> RelyingParty.StoredCredential {
        RelyingParty.StoredCredential(
            id: registration.credentialID, publicKey: registration.publicKey, signCount: signCount ?? registration.signCount,
            backupEligible: registration.backupEligible)
    }

    static func assert(
        _ vector: WebAuthnTestVector, as credential: RelyingParty.StoredCredential, with party: RelyingParty = party,
        clientData: String? = nil, challenge: String? = nil, signature: [UInt8]? = nil
    ) throws(WebAuthnError) -> RelyingParty.Assertion {
        try party.verifyAssertion(
            clientDataJSON: [UInt8](hex: clientData ?? vector.authenticationClientData), authenticatorData: [UInt8](hex: vector.authenticatorData),
            signature: signature ?? [UInt8](hex: vector.signature), challenge: [UInt8](hex: challenge ?? vector.authenticationChallenge),
            credential: credential)
    }

    @Test(
        "§16 test vectors: each registration verifies with its attestation, and its authentication with the stored key",
        arguments: WebAuthnTestVector.sameOrigin)
    func vectors(vector: WebAuthnTestVector) throws {
        let registration = try Self.register(vector)
        #expect(registration.credentialID == [UInt8](hex: vector.credentialID))
        #expect(registration.aaguid == [UInt8](hex: vector.aaguid))
        #expect(registration.publicKey.algorithm == vector.algorithm)
        #expect(registration.attestation.name == vector.attestation)
        #expect(registration.signCount == 0)
        #expect(!registration.backedUp || registration.backupEligible, "BS only with BE")
        let assertion = try Self.assert(vector, as: Self.stored(registration))
        #expect(assertion.signCount == 0)
        // The stored key, read back from its bytes, verifies the same assertion.
        let reread = RelyingParty.StoredCredential(
            id: registration.credentialID, publicKey: try COSEKey(encoded: registration.publicKey.encoded), signCount: 0,
            backupEligible: registration.backupEligible)
        #expect(throws: Never.self) { try Self.assert(vector, as: reread) }
    }

    @Test("the flags of the vectors: §16.2 is backed up, §16.3 backup-eligible, §16.7 user-verified, §16.11 none of them")
    func flags() throws {
        let none = try Self.register(.noneES256)
        #expect(none.backupEligible && none.backedUp && !none.userVerified)
        let selfAttested = try Self.register(.selfES256)
        #expect(selfAttested.backupEligible && selfAttested.userVerified)
        let packed = try Self.assert(.packedES256, as: Self.stored(try Self.register(.packedES256)))
        #expect(packed.userVerified && !packed.backedUp)
        let edDSA = try Self.register(.packedEdDSA)
        #expect(!edDSA.backupEligible && !edDSA.userVerified)
    }

    @Test("a ceremony in a cross-origin frame (§16.4) is refused unless the configuration allows it")
    func crossOrigin() throws {
        #expect(throws: WebAuthnError.crossOrigin) { try Self.register(.crossOriginES256) }
        var lenient = Self.party
        lenient.allowCrossOrigin = true
        let registration = try Self.register(.crossOriginES256, with: lenient)
        #expect(throws: Never.self) { try Self.assert(.crossOriginES256, as: Self.stored(registration), with: lenient) }
        #expect(throws: WebAuthnError.crossOrigin) { try Self.assert(.crossOriginES256, as: Self.stored(registration)) }
    }

    @Test("another origin, another relying party id, another challenge or the other ceremony's client data are refused")
    func clientDataChecks() throws {
        let vector = WebAuthnTestVector.noneES256
        let other = RelyingParty(id: WebAuthnTestVector.rpID, origins: ["https://id.example.org"])
        #expect(throws: WebAuthnError.wrongOrigin(WebAuthnTestVector.origin)) { try Self.register(vector, with: other) }
        let otherID = RelyingParty(id: "example.com", origins: [WebAuthnTestVector.origin])
        #expect(throws: WebAuthnError.wrongRelyingParty) { try Self.register(vector, with: otherID) }
        let credential = Self.stored(try Self.register(vector))
        #expect(throws: WebAuthnError.wrongChallenge) { try Self.assert(vector, as: credential, challenge: vector.registrationChallenge) }
        #expect(throws: WebAuthnError.wrongType("webauthn.create")) {
            try Self.assert(vector, as: credential, clientData: vector.registrationClientData, challenge: vector.registrationChallenge)
        }
        #expect(throws: WebAuthnError.wrongRelyingParty) { try Self.assert(vector, as: credential, with: otherID) }
    }

    @Test("a wrong signature, another credential's key and a counter that does not move forward are refused")
    func signatureChecks() throws {
        let vector = WebAuthnTestVector.packedES256
        let credential = Self.stored(try Self.register(vector))
        var tampered = [UInt8](hex: vector.signature)
        tampered[tampered.count - 1] ^= 0x01
        #expect(throws: WebAuthnError.invalidSignature) { try Self.assert(vector, as: credential, signature: tampered) }
        let someoneElses = Self.stored(try Self.register(.selfES256))
        #expect(throws: WebAuthnError.invalidSignature) { try Self.assert(vector, as: someoneElses) }
        #expect(throws: WebAuthnError.signCountRegressed(stored: 5, received: 0)) {
            try Self.assert(vector, as: Self.stored(try Self.register(vector), signCount: 5))
        }
        // A relying party set to warn lets it in and says so.
        var lenient = Self.party
        lenient.refuseCounterRegression = false
        let regressed = try Self.assert(vector, as: Self.stored(try Self.register(vector), signCount: 5), with: lenient)
        #expect(regressed.counterRegressed && regressed.signCount == 0)
        #expect(!(try Self.assert(vector, as: Self.stored(try Self.register(vector)), with: lenient)).counterRegressed)
    }

    @Test("user verification: required refuses an authenticator that skipped it, preferred accepts it")
    func userVerification() throws {
        var strict = Self.party
        strict.userVerification = .required
        #expect(throws: WebAuthnError.userNotVerified) { try Self.register(.noneES256, with: strict) }
        #expect(!(try Self.register(.noneES256)).userVerified)
        let verified = try Self.register(.packedES256, with: strict)
        #expect(verified.userVerified)
        #expect(throws: Never.self) { try Self.assert(.packedES256, as: Self.stored(verified), with: strict) }
    }

    @Test("attestation statements that do not verify, unsupported formats, and no user presence are refused")
    func attestationChecks() throws {
        let vector = WebAuthnTestVector.selfES256
        let object = try #require(try CBORDecoder().decode([UInt8](hex: vector.attestationObject)).map)
        func register(_ change: (inout CBORMap) -> Void) throws(WebAuthnError) -> RelyingParty.Registration {
            var changed = object
            change(&changed)
            return try Self.party.verifyRegistration(
                clientDataJSON: [UInt8](hex: vector.registrationClientData), attestationObject: CBOREncoder.encode(.map(changed)),
                challenge: [UInt8](hex: vector.registrationChallenge))
        }
        #expect(throws: WebAuthnError.unsupportedAttestation("tpm")) { try register { $0[text: "fmt"] = .text("tpm") } }
        #expect(throws: WebAuthnError.invalidAttestation("a none statement must be empty")) { try register { $0[text: "fmt"] = .text("none") } }
        #expect {
            try register { map in
                var statement = map[text: "attStmt"]!.map!
                var signature = statement[text: "sig"]!.bytes!
                signature[10] ^= 0xFF
                statement[text: "sig"] = .bytes(signature)
                map[text: "attStmt"] = .map(statement)
            }
        } throws: { error in
            if case .invalidAttestation = error as? WebAuthnError { true } else { false }
        }
        #expect(throws: WebAuthnError.userNotPresent) {
            try register { map in
                var data = map[text: "authData"]!.bytes!
                data[32] &= ~0x01
                map[text: "authData"] = .bytes(data)
            }
        }
        #expect(throws: WebAuthnError.malformed("the attestation object needs fmt, attStmt and authData")) {
            try register { $0[text: "authData"] = .text("not bytes") }
        }
    }

    @Test("no truncation of an attestation object verifies, and no single-byte corruption outside its unanchored certificate does")
    func corruptedAttestationObjects() throws {
        let vector = WebAuthnTestVector.packedES256
        let bytes = [UInt8](hex: vector.attestationObject)
        func attempt(_ object: [UInt8]) -> Bool {
            (try? Self.party.verifyRegistration(
                clientDataJSON: [UInt8](hex: vector.registrationClientData), attestationObject: object,
                challenge: [UInt8](hex: vector.registrationChallenge))) != nil
        }
        for length in 0..<bytes.count {
            #expect(!attempt(Array(bytes.prefix(length))), "a truncation to \(length) bytes must not verify")
        }
        // Without trust anchors nothing signs the attestation certificate itself: only a byte inside it (outside
        // the checked OU and key) may change and still verify. Every other byte is covered by a check or a signature.
        let object = try #require(try CBORDecoder().decode(bytes).map)
        let certificate = try #require(object[text: "attStmt"]?.map?[text: "x5c"]?.array?.first?.bytes)
        let start = try #require((0...(bytes.count - certificate.count)).first { Array(bytes[$0..<$0 + certificate.count]) == certificate })
        var outside: [Int] = []
        for index in bytes.indices {
            var corrupted = bytes
            corrupted[index] ^= 0x5A
            if attempt(corrupted), !(start..<start + certificate.count).contains(index) { outside.append(index) }
        }
        #expect(outside.isEmpty, "corruptions outside the certificate verified at \(outside)")
        #expect(attempt(bytes))
    }
}
