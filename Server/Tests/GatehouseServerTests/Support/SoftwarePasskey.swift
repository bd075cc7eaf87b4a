import CBOR
import Crypto
import Foundation
import Gatehouse
import GatehouseProtocol

/// A passkey authenticator in software, for tests: P-256 keys, `none` attestation, a counter per credential, and
/// switches to misbehave (skip user verification, reset its counter, sign for another origin). It speaks WebAuthn's
/// JSON forms, as a browser's `toJSON()` does, through the SDK's ``PasskeyProvider`` seam.
actor SoftwarePasskey: PasskeyProvider {
    struct Credential {
        let id: [UInt8]
        let key: P256.Signing.PrivateKey
        let rpID: String
        let userHandle: [UInt8]
        var counter: UInt32
    }

    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The page's origin the browser reports.
    var origin: String
    var verifiesUser = true
    var backupEligible = false
    /// Counts signatures (a counter of 0 means "does not count").
    var counts = true
    private(set) var credentials: [Credential] = []

    init(origin: String) {
        self.origin = origin
    }

    func set(origin: String? = nil, verifiesUser: Bool? = nil, backupEligible: Bool? = nil, counts: Bool? = nil) {
        if let origin { self.origin = origin }
        if let verifiesUser { self.verifiesUser = verifiesUser }
        if let backupEligible { self.backupEligible = backupEligible }
        if let counts { self.counts = counts }
    }

    /// Sets a credential's counter back, as a cloned authenticator's would be.
    func resetCounter() {
        for index in credentials.indices { credentials[index].counter = 0 }
    }

    private static func object(_ json: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Refusal(description: "options are not an object")
        }
        return object
    }

    private func clientData(_ type: String, challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    private func flags(attested: Bool) -> UInt8 {
        0x01 | (verifiesUser ? 0x04 : 0) | (backupEligible ? 0x08 : 0) | (attested ? 0x40 : 0)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    func createPasskey(optionsJSON: String) async throws -> String {
        let options = try Self.object(optionsJSON)
        guard let challenge = options["challenge"] as? String, let rp = options["rp"] as? [String: Any], let rpID = rp["id"] as? String,
            let user = options["user"] as? [String: Any], let handle = (user["id"] as? String).flatMap(Base64URL.decode)
        else { throw Refusal(description: "incomplete creation options") }
        let excluded = (options["excludeCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        if credentials.contains(where: { excluded.contains(Base64URL.encode($0.id)) }) {
            throw Refusal(description: "InvalidStateError: a passkey for this account exists on this authenticator")
        }
        let credential = Credential(
            id: (0..<16).map { _ in UInt8.random(in: .min ... .max) }, key: P256.Signing.PrivateKey(), rpID: rpID, userHandle: Array(handle), counter: 0)
        credentials.append(credential)
        return registrationJSON(for: credential, challenge: challenge)
    }

    /// The registration JSON for `credential` answering `challenge`; tests use it to register a credential twice.
    func registrationJSON(for credential: Credential, challenge: String) -> String {
        let point = Array(credential.key.publicKey.x963Representation.dropFirst())
        let key = CBOR.map(
            CBORMap([
                (CBOR(1), CBOR(2)), (CBOR(3), CBOR(-7)), (CBOR(-1), CBOR(1)), (CBOR(-2), .bytes(Array(point[0..<32]))),
                (CBOR(-3), .bytes(Array(point[32..<64]))),
            ]))
        let authenticatorData =
            Array(SHA256.hash(data: Data(credential.rpID.utf8))) + [flags(attested: true)] + Self.bigEndian(credential.counter)
            + [UInt8](repeating: 0, count: 16) + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)] + credential.id
            + CBOREncoder.encode(key)
        let attestation = CBOREncoder.encode(
            .map(CBORMap([(.text("fmt"), .text("none")), (.text("attStmt"), .map(CBORMap())), (.text("authData"), .bytes(authenticatorData))])))
        let id = Base64URL.encode(credential.id)
        return
            #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData("webauthn.create", challenge: challenge)))","attestationObject":"\#(Base64URL.encode(attestation))","transports":["internal"]},"clientExtensionResults":{},"authenticatorAttachment":"platform"}"#
    }

    func usePasskey(optionsJSON: String) async throws -> String {
        let options = try Self.object(optionsJSON)
        guard let challenge = options["challenge"] as? String, let rpID = options["rpId"] as? String else {
            throw Refusal(description: "incomplete request options")
        }
        let allowed = (options["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        guard
            let index = credentials.lastIndex(where: { $0.rpID == rpID && (allowed.isEmpty || allowed.contains(Base64URL.encode($0.id))) })
        else { throw Refusal(description: "NotAllowedError: no passkey for \(rpID) here") }
        if counts { credentials[index].counter += 1 }
        let credential = credentials[index]
        let authenticatorData = Array(SHA256.hash(data: Data(rpID.utf8))) + [flags(attested: false)] + Self.bigEndian(credential.counter)
        let data = clientData("webauthn.get", challenge: challenge)
        let signature = try credential.key.signature(for: authenticatorData + Array(SHA256.hash(data: data))).derRepresentation
        let id = Base64URL.encode(credential.id)
        return
            #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(data))","authenticatorData":"\#(Base64URL.encode(authenticatorData))","signature":"\#(Base64URL.encode(signature))","userHandle":"\#(Base64URL.encode(credential.userHandle))"},"clientExtensionResults":{}}"#
    }
}
