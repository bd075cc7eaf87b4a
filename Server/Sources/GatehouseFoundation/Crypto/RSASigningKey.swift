import Crypto
import CryptoExtras
import Foundation

#if canImport(CLibCrypto)
import CLibCrypto
#endif

/// An RSA private key that makes RSASSA-PKCS1-v1_5 signatures with SHA-256 (RS256, RFC 7518 §3.3).
///
/// On Linux the signature is made by OpenSSL's libcrypto: on x86-64 it signs RSA-2048 about twice as fast as
/// swift-crypto's BoringSSL, and an RS256 signature is most of what an ID token costs. Elsewhere swift-crypto signs.
/// PKCS #1 v1.5 signatures are deterministic, so both make the same bytes for the same key and message (a test
/// compares them). Parsing and verifying stay on swift-crypto.
///
/// `@unchecked Sendable`: libcrypto's key is never changed after the initializer, and OpenSSL 3 signs with one key
/// from many threads at once (the key guards its own blinding state).
package final class RSASigningKey: @unchecked Sendable {
    /// The public half, for verifying and publishing.
    package let publicKey: _RSA.Signing.PublicKey

    #if canImport(CLibCrypto)
    /// The `EVP_PKEY`, owned by this object.
    private let key: OpaquePointer
    #else
    private let key: _RSA.Signing.PrivateKey
    #endif

    /// A key from its PEM form (PKCS #1 `RSA PRIVATE KEY` or PKCS #8 `PRIVATE KEY`).
    package convenience init(pemRepresentation: String) throws {
        try self.init(try _RSA.Signing.PrivateKey(pemRepresentation: pemRepresentation))
    }

    /// The same key as swift-crypto's `key`.
    package init(_ key: _RSA.Signing.PrivateKey) throws {
        publicKey = key.publicKey
        #if canImport(CLibCrypto)
        let der = [UInt8](key.derRepresentation)
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var start = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &start, buffer.count)
        }
        guard let parsed else { throw Failure(operation: "reading the key") }
        self.key = parsed
        #else
        self.key = key
        #endif
    }

    #if canImport(CLibCrypto)
    deinit { EVP_PKEY_free(key) }
    #endif

    /// The modulus's length in bits.
    package var keySizeInBits: Int { publicKey.keySizeInBits }

    /// The RS256 signature of `message`: SHA-256, then RSASSA-PKCS1-v1_5 (RFC 8017 §8.2).
    package func signature(for message: some DataProtocol) throws -> [UInt8] {
        #if canImport(CLibCrypto)
        guard let context = EVP_MD_CTX_new() else { throw Failure(operation: "allocating a context") }
        defer { EVP_MD_CTX_free(context) }
        // PKCS #1 v1.5 is libcrypto's default padding for RSA keys.
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw Failure(operation: "starting a signature") }
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let input = Array(message)
        let status = input.withUnsafeBufferPointer { bytes in
            EVP_DigestSign(context, &signature, &length, bytes.baseAddress, bytes.count)
        }
        guard status == 1 else { throw Failure(operation: "signing") }
        return Array(signature.prefix(length))
        #else
        return Array(try key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        #endif
    }

    /// Whether `signature` is an RS256 signature of `message` by this key, checked by swift-crypto.
    package func isValidSignature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .insecurePKCS1v1_5)
    }

    /// libcrypto refused an operation; the message carries its reason.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        init(operation: String) {
            #if canImport(CLibCrypto)
            // The error queue is per thread: read this thread's first reason and leave the queue empty.
            var buffer = [CChar](repeating: 0, count: 256)
            let code = ERR_get_error()
            ERR_clear_error()
            ERR_error_string_n(code, &buffer, buffer.count)
            let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            description = "OpenSSL failed \(operation): \(reason)"
            #else
            description = "RSA failed \(operation)"
            #endif
        }
    }
}
