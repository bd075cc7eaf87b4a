import CryptoExtras
import Foundation
import GatehouseFoundation
import JWTKit

/// jwt-kit's view of an ``RSASigningKey``: RS256 signatures made where the key signs fastest (libcrypto on Linux).
package struct RS256Algorithm: JWTAlgorithm {
    package let key: RSASigningKey

    package init(key: RSASigningKey) {
        self.key = key
    }

    package var name: String { "RS256" }

    package func sign(_ plaintext: some DataProtocol) throws -> [UInt8] {
        try key.signature(for: plaintext)
    }

    package func verify(_ signature: some DataProtocol, signs plaintext: some DataProtocol) throws -> Bool {
        key.isValidSignature(signature, for: plaintext)
    }
}
