import CBOR
import Crypto
import Foundation
import GatehouseProtocol

/// Gatehouse as a WebAuthn relying party: verifies registrations and assertions as WebAuthn Level 3 §7.1 and §7.2
/// say, for one relying party id and its origins. The caller supplies the challenge its flow issued (single use,
/// expiring with the flow) and stores what a verification returns.
package struct RelyingParty: Sendable {
    /// The relying party id: the issuer's host or a registrable suffix of it.
    package var id: String
    /// The origins ceremonies may run on, e.g. `https://id.example.com`.
    package var origins: [String]
    /// Whether the authenticator must verify the user (PIN, biometrics): only `required` refuses one that did not.
    package var userVerification = WebAuthnPolicy.Requirement.preferred
    /// Whether a ceremony may run in a frame of another origin.
    package var allowCrossOrigin = false
    /// Whether a counter that did not move forward refuses the assertion (else it is reported in the result).
    package var refuseCounterRegression = true

    /// A registration that verified: what to store for the credential.
    package struct Registration: Sendable {
        package let credentialID: [UInt8]
        package let publicKey: COSEKey
        package let signCount: UInt32
        package let aaguid: [UInt8]
        package let userVerified: Bool
        package let backupEligible: Bool
        package let backedUp: Bool
        package let attestation: AttestationResult
    }

    /// An assertion that verified: what changes for the stored credential.
    package struct Assertion: Sendable {
        package let userVerified: Bool
        package let signCount: UInt32
        package let backedUp: Bool
        /// The counter did not move forward, and the relying party lets that pass: worth a warning.
        package var counterRegressed = false
    }

    /// The stored credential an assertion is checked against.
    package struct StoredCredential: Sendable {
        package let id: [UInt8]
        package let publicKey: COSEKey
        package let signCount: UInt32
        package let backupEligible: Bool
    }

    /// §7.1: verifies a new credential made for `challenge`.
    package func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8]) throws(WebAuthnError) -> Registration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let object: CBORMap
        do {
            guard let map = try CBORDecoder().decode(attestationObject).map else { throw WebAuthnError.malformed("the attestation object is not a map") }
            object = map
        } catch let error as CBORError {
            throw .invalidCBOR(error)
        } catch {
            throw .malformed("the attestation object is not a map")
        }
        guard let format = object[text: "fmt"]?.text, let statement = object[text: "attStmt"]?.map, let rawData = object[text: "authData"]?.bytes else {
            throw .malformed("the attestation object needs fmt, attStmt and authData")
        }
        let data = try AuthenticatorData(rawData)
        try checkFlags(data)
        guard let credential = data.attestedCredential else { throw .missingCredential }
        let attestation = try AttestationStatement.verify(
            format: format, statement: statement, authenticatorData: data, clientDataHash: Array(SHA256.hash(data: clientDataJSON)))
        return Registration(
            credentialID: credential.credentialID, publicKey: credential.publicKey, signCount: data.signCount, aaguid: credential.aaguid,
            userVerified: data.flags.contains(.userVerified), backupEligible: data.flags.contains(.backupEligible),
            backedUp: data.flags.contains(.backedUp), attestation: attestation)
    }

    /// §7.2: verifies an assertion made for `challenge` by `credential`.
    package func verifyAssertion(
        clientDataJSON: [UInt8], authenticatorData rawData: [UInt8], signature: [UInt8], challenge: [UInt8], credential: StoredCredential
    ) throws(WebAuthnError) -> Assertion {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(rawData)
        try checkFlags(data)
        guard credential.publicKey.isValidSignature(signature, for: rawData + Array(SHA256.hash(data: clientDataJSON))) else {
            throw .invalidSignature
        }
        // A counter that does not move forward, where either side counts, may mean a cloned authenticator.
        let regressed = (data.signCount != 0 || credential.signCount != 0) && data.signCount <= credential.signCount
        if regressed, refuseCounterRegression { throw .signCountRegressed(stored: credential.signCount, received: data.signCount) }
        return Assertion(
            userVerified: data.flags.contains(.userVerified), signCount: data.signCount,
            backedUp: credential.backupEligible && data.flags.contains(.backedUp), counterRegressed: regressed)
    }

    private func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        let client = try CollectedClientData(json: json)
        guard client.type == type else { throw .wrongType(client.type) }
        guard let received = Base64URL.decode(client.challenge), ConstantTime.equals(Array(received), challenge) else {
            throw .wrongChallenge
        }
        guard origins.contains(client.origin) else { throw .wrongOrigin(client.origin) }
        if client.crossOrigin == true, !allowCrossOrigin { throw .crossOrigin }
    }

    private func checkFlags(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard ConstantTime.equals(data.rpIDHash, Array(SHA256.hash(data: Data(id.utf8)))) else { throw .wrongRelyingParty }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if userVerification == .required, !data.flags.contains(.userVerified) { throw .userNotVerified }
        // BS without BE is a contradiction the spec tells relying parties to refuse.
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) { throw .malformed("the backup state is set without backup eligibility") }
    }
}
