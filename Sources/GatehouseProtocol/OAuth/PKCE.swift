import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the only method Gatehouse accepts, `S256`.
public enum PKCE {
    /// The one challenge method Gatehouse accepts; `plain` is rejected because it protects nothing
    /// once the authorization request leaks.
    public static let method = "S256"

    /// The characters RFC 7636 §4.1 allows in a verifier (and in a challenge).
    static func isUnreserved(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || "-._~".contains(character)
    }

    /// Whether `verifier` has the syntax RFC 7636 §4.1 requires: 43 to 128 unreserved characters.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.count) && verifier.allSatisfy(isUnreserved)
    }

    /// Whether `challenge` could be an S256 challenge: 43 unreserved characters (a base64url SHA-256).
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.count == 43 && challenge.allSatisfy(isUnreserved)
    }

    /// The S256 challenge for a verifier: `BASE64URL(SHA256(ASCII(verifier)))`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
    }

    /// A new random verifier: 32 bytes from the system CSPRNG, base64url encoded (43 characters).
    public static func makeVerifier() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }
}
