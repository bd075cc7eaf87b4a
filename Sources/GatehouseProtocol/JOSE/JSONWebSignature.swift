import Crypto
import CryptoExtras
import Foundation

/// Checks JWS signatures (RFC 7515) with a public JSON Web Key, for the algorithms Gatehouse accepts anywhere: ID
/// tokens (RS256, ES256) and DPoP proofs (those and EdDSA/Ed25519, PS256). `none` and HMAC are never among them.
public enum JSONWebSignature {
    /// Every algorithm this type can check.
    public static let algorithms: Set<String> = ["ES256", "EdDSA", "Ed25519", "RS256", "PS256"]

    /// Why a key cannot check a signature.
    public enum KeyError: Error, Equatable, Sendable {
        /// The algorithm is not one of ``JSONWebSignature/algorithms``.
        case algorithmNotSupported(String)
        /// The key is not of the algorithm's type, or its members do not make a public key.
        case unusableKey(String)
    }

    /// Whether `signature` signs `input` under `key` with `algorithm`.
    /// - Throws: ``KeyError`` when the algorithm is unknown or the key does not fit it.
    public static func isValid(_ signature: Data, of input: Data, with key: JSONWebKey, algorithm: String) throws(KeyError) -> Bool {
        switch algorithm {
        case "RS256", "PS256":
            guard key.keyType == "RSA", let n = key.modulus.flatMap(Base64URL.decode), let e = key.exponent.flatMap(Base64URL.decode),
                let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw .unusableKey("the RSA key (n, e) is not usable") }
            // RFC 7518 §3.5: PS256 is RSASSA-PSS with SHA-256 and a salt as long as the hash.
            return publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                padding: algorithm == "PS256" ? .PSS : .insecurePKCS1v1_5)
        case "ES256":
            guard key.keyType == "EC", key.curve == "P-256", let x = key.x.flatMap(Base64URL.decode), let y = key.y.flatMap(Base64URL.decode),
                x.count == 32, y.count == 32, let publicKey = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { throw .unusableKey("the EC key is not a P-256 point") }
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(ecdsa, for: SHA256.hash(data: input))
        // RFC 9864 names the fully specified Ed25519; EdDSA is its older, curve-by-key name.
        case "EdDSA", "Ed25519":
            guard key.keyType == "OKP", key.curve == "Ed25519", let x = key.x.flatMap(Base64URL.decode),
                let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw .unusableKey("the OKP key is not an Ed25519 key") }
            return publicKey.isValidSignature(signature, for: input)
        default:
            throw .algorithmNotSupported(algorithm)
        }
    }
}
