import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol

/// The device's half of the PIN protocol (see the "Device authenticator protocol" article).
///
/// The PIN is only ever an input to an RFC 9497 VOPRF(P-384, SHA-384) blinded with a fresh random scalar, so
/// what goes over the wire is independent of it. The PRF output, which needs the server's key, is stretched with
/// HKDF into the AES-GCM key that seals the identity's ECDSA P-256 signing key.
struct PINCredential {
    let identityID: String
    let serverKey: P384._VOPRF.PublicKey

    init(identityID: String, oprfPublicKey: Data) throws(DeviceAuthenticatorError) {
        self.identityID = identityID
        do {
            serverKey = try P384._VOPRF.PublicKey(x963Representation: oprfPublicKey)
        } catch {
            throw .invalidEvaluation
        }
    }

    /// A blinded PIN: the element to send, and the blind to finish with (kept on the device, used once).
    func blind(_ pin: String) throws(DeviceAuthenticatorError) -> P384._VOPRF.BlindedInput {
        do {
            return try serverKey.blind(PINProtocol.oprfInput(pin: pin, identityID: identityID))
        } catch {
            throw .invalidEvaluation
        }
    }

    /// The sealing key from the server's evaluation, after checking its proof against the identity's server key.
    func sealingKey(_ blinded: P384._VOPRF.BlindedInput, evaluation: String) throws(DeviceAuthenticatorError) -> SymmetricKey {
        let output: Data
        do {
            guard let bytes = Base64URL.decode(evaluation) else { throw DeviceAuthenticatorError.invalidEvaluation }
            output = try serverKey.finalize(blinded, using: P384._VOPRF.BlindEvaluation(rawRepresentation: bytes))
        } catch {
            throw .invalidEvaluation
        }
        return Self.sealingKey(prfOutput: output, identityID: identityID)
    }

    /// HKDF-SHA256 of the PRF output, salted with the identity: 256 bits for AES-GCM.
    static func sealingKey(prfOutput: Data, identityID: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: prfOutput), salt: Data(identityID.utf8),
            info: Data("\(PINProtocol.version)|signing key seal".utf8), outputByteCount: 32)
    }

    /// Seals a new signing key; the identity id is authenticated with it, so a sealed key moved to another identity does not open.
    func seal(_ signingKey: P256.Signing.PrivateKey, with key: SymmetricKey) throws(DeviceAuthenticatorError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(signingKey.rawRepresentation, using: key, authenticating: Data(identityID.utf8)).combined else {
                throw DeviceAuthenticatorError.storage("sealing failed")
            }
            return combined
        } catch {
            throw .storage("the signing key could not be sealed")
        }
    }

    /// Opens the signing key; `nil` when `key` came from a wrong PIN (the seal does not authenticate).
    func open(_ sealed: Data, with key: SymmetricKey) -> P256.Signing.PrivateKey? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let raw = try? AES.GCM.open(box, using: key, authenticating: Data(identityID.utf8))
        else { return nil }
        return try? P256.Signing.PrivateKey(rawRepresentation: raw)
    }
}
