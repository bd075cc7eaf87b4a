import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol

/// Signs test tokens with keys made here, the way a provider would.
struct TestIssuer: Sendable {
    let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    let ec = P256.Signing.PrivateKey()

    var keySet: JSONWebKeySet {
        let primitives = try! rsa.publicKey.getKeyPrimitives()
        let raw = ec.publicKey.rawRepresentation
        return JSONWebKeySet(keys: [
            JSONWebKey(
                keyType: "RSA", keyID: "rsa-1", algorithm: "RS256", modulus: Base64URL.encode(primitives.modulus),
                exponent: Base64URL.encode(primitives.publicExponent)),
            JSONWebKey(
                keyType: "EC", keyID: "ec-1", algorithm: "ES256", curve: "P-256", x: Base64URL.encode(raw.prefix(32)),
                y: Base64URL.encode(raw.suffix(32))),
        ])
    }

    func token(alg: String = "RS256", kid: String? = nil, claims: [String: Any] = [:], now: Date = Date()) throws -> String {
        var payload: [String: Any] = [
            "iss": "https://id.example.com", "sub": "user-1", "aud": "app", "exp": Int(now.timeIntervalSince1970) + 300,
            "iat": Int(now.timeIntervalSince1970), "nonce": "n-1", "azp": "app", "amr": ["pwd"],
        ]
        for (key, value) in claims { payload[key] = value }
        let header = ["alg": alg, "typ": "JWT", "kid": kid ?? (alg == "ES256" ? "ec-1" : "rsa-1")]
        let input =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header))
            + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        let digest = SHA256.hash(data: Data(input.utf8))
        let signature: Data
        switch alg {
        case "ES256": signature = try ec.signature(for: digest).rawRepresentation
        case "RS256": signature = try rsa.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation
        default: signature = Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(size: .bits256)))
        }
        return input + "." + Base64URL.encode(signature)
    }
}
