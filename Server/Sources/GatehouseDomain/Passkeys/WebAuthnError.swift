import CBOR

/// Why a passkey's registration or sign-in was refused. Each case is one check of the WebAuthn ceremonies
/// (Level 3, §7.1 and §7.2), so a log line or a test says which one failed; ``description`` is safe to show.
package enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field of the credential is missing, not base64url, or of the wrong type.
    case malformed(String)
    /// The attestation object, authenticator data or public key is not the CBOR it must be.
    case invalidCBOR(CBORError)
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongType(String)
    /// The challenge is not the one this flow issued.
    case wrongChallenge
    /// The page that ran the ceremony is not one of the configured origins.
    case wrongOrigin(String)
    /// The ceremony ran in a cross-origin frame, which the configuration does not allow.
    case crossOrigin
    /// The authenticator data is for another relying party id.
    case wrongRelyingParty
    /// The authenticator did not test for user presence.
    case userNotPresent
    /// The policy requires user verification (a PIN or biometrics) and the authenticator did not perform it.
    case userNotVerified
    /// A registration without the credential it registers.
    case missingCredential
    /// The credential uses an algorithm Gatehouse does not accept, or a key that is not one.
    case unsupportedKey(String)
    /// The attestation statement's format is not one Gatehouse verifies.
    case unsupportedAttestation(String)
    /// The attestation statement does not verify.
    case invalidAttestation(String)
    /// The assertion's signature does not verify with the credential's public key.
    case invalidSignature
    /// The signature counter went backwards or stood still: the authenticator may have been cloned.
    case signCountRegressed(stored: UInt32, received: UInt32)
    /// The credential presented is not the one expected.
    case wrongCredential
    /// The new credential is registered already (to this account or another).
    case alreadyRegistered

    /// Whether the input was not what WebAuthn defines at all (not JSON, not base64url, not CBOR), as opposed to a
    /// well-formed credential that fails a check: the first is a malformed request, the second a refused attempt.
    package var isMalformed: Bool {
        switch self {
        case .malformed, .invalidCBOR: true
        default: false
        }
    }

    package var description: String {
        switch self {
        case .malformed(let what): "The credential is malformed: \(what)."
        case .invalidCBOR(let error): "The credential is malformed: \(error)"
        case .wrongType(let type): "The client data is for \(type), not for this ceremony."
        case .wrongChallenge: "The credential answers another challenge; start again."
        case .wrongOrigin(let origin): "The credential was made on \(origin), which is not this site."
        case .crossOrigin: "The credential was made in a frame of another site."
        case .wrongRelyingParty: "The credential is for another site."
        case .userNotPresent: "The authenticator did not check that someone is present."
        case .userNotVerified: "The authenticator did not verify the user (PIN or biometrics), which this site requires."
        case .missingCredential: "The authenticator returned no credential."
        case .unsupportedKey(let what): "The credential's key is not supported: \(what)."
        case .unsupportedAttestation(let format): "The attestation format \(format) is not supported."
        case .invalidAttestation(let why): "The attestation does not verify: \(why)."
        case .invalidSignature: "The passkey's signature does not verify."
        case .signCountRegressed(let stored, let received):
            "The authenticator's counter went from \(stored) to \(received): it may have been copied."
        case .wrongCredential: "That passkey is not the one expected."
        case .alreadyRegistered: "That passkey is registered already; use another authenticator."
        }
    }
}
