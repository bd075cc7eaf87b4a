import Crypto
import CryptoExtras
import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// Signs the short JWTs Gatehouse shows a provider's token endpoint instead of a shared secret: `private_key_jwt`
/// assertions (RFC 7523 §2.2) and Sign in with Apple's client secret. The key is a PEM file: P-256 (ES256) or RSA (RS256).
package struct ClientAssertionSigner: Sendable {
    private enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(RSASigningKey)
    }

    private let key: Key
    package let keyID: String?

    package init(pemFile: String, keyID: String?) throws {
        guard let pem = try? String(contentsOfFile: pemFile, encoding: .utf8) else {
            throw ConfigurationError("The private key file \(pemFile) cannot be read.")
        }
        try self.init(pem: pem, keyID: keyID, source: "The private key file \(pemFile)")
    }

    /// A signer with the key in `pem`; `source` names where it came from in the error when it is not a usable key.
    package init(pem: String, keyID: String?, source: String) throws {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self.key = .p256(key)
        } else if let key = try? RSASigningKey(pemRepresentation: pem), key.keySizeInBits >= 2048 {
            self.key = .rsa(key)
        } else {
            throw ConfigurationError("\(source) holds neither a P-256 key nor an RSA key of at least 2048 bits (PEM).")
        }
        self.keyID = keyID
    }

    package var algorithm: String {
        switch key {
        case .p256: "ES256"
        case .rsa: "RS256"
        }
    }

    /// A JWT of `claims`, signed.
    package func sign(_ claims: [String: JSONClaim]) throws -> String {
        struct Header: Encodable {
            package var alg: String
            package var kid: String?
            package var typ = "JWT"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let input = Base64URL.encode(try encoder.encode(Header(alg: algorithm, kid: keyID))) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature: Data
        switch key {
        case .p256(let key): signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        case .rsa(let key): signature = Data(try key.signature(for: Data(input.utf8)))
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// A `private_key_jwt` assertion for `clientID` at `tokenEndpoint`: single use (`jti`), valid one minute.
    package func clientAssertion(clientID: String, tokenEndpoint: String, now: Int64) throws -> String {
        try sign([
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(tokenEndpoint), "jti": .string(SecureRandom.token()),
            "iat": .number(now), "exp": .number(now + 60),
        ])
    }

    /// Sign in with Apple's client secret: issued by the team, for the service id, to Apple; valid five minutes.
    package func appleClientSecret(teamID: String, clientID: String, now: Int64) throws -> String {
        try sign([
            "iss": .string(teamID), "sub": .string(clientID), "aud": .string("https://appleid.apple.com"), "iat": .number(now), "exp": .number(now + 300),
        ])
    }
}

/// A claim of a JWT Gatehouse signs for a provider.
package enum JSONClaim: Encodable, Sendable, Equatable {
    case string(String)
    case number(Int64)

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        }
    }
}
