import Crypto
import CryptoExtras
import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// The server's half of the PIN protocol: one RFC 9497 VOPRF(P-384, SHA-384) key per device identity, kept
/// sealed under the server secret, that evaluates blinded PINs without ever seeing them.
///
/// The device can only open its signing key with the PRF output for the right PIN, and only the server can
/// compute that output, once per counted attempt. A copied database alone does not let anyone evaluate.
package struct PINKeyring: Sendable {
    package let box: SecretBox

    package static let purpose = "device pin keys v1"

    /// Why an evaluation was refused.
    package enum Failure: Error {
        /// The blinded element is not a valid encoded P-384 point.
        case invalidElement
    }

    /// A new identity key, sealed for storage.
    package func makeKey() throws -> String {
        try box.seal(P384._VOPRF.PrivateKey().rawRepresentation)
    }

    /// The public key devices verify evaluations against (x9.63, base64url).
    package func publicKey(sealed: String) throws -> String {
        Base64URL.encode(try key(sealed).publicKey.x963Representation)
    }

    /// Evaluates `blindedElement` (base64url) with the sealed key: the evaluated element and its proof, base64url.
    package func evaluate(_ blindedElement: String, sealed: String) throws -> String {
        let element: P384._VOPRF.BlindedElement
        do {
            guard let bytes = Base64URL.decode(blindedElement) else { throw Failure.invalidElement }
            element = try P384._VOPRF.BlindedElement(oprfRepresentation: bytes)
        } catch {
            throw Failure.invalidElement
        }
        return Base64URL.encode(try key(sealed).evaluate(element).rawRepresentation)
    }

    package func key(_ sealed: String) throws -> P384._VOPRF.PrivateKey {
        try P384._VOPRF.PrivateKey(rawRepresentation: box.open(sealed))
    }

    package init(box: SecretBox) {
        self.box = box
    }
}
