import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import NIOPosix

/// Hashes and verifies passwords with scrypt, off the event loops, a bounded number at a time.
///
/// Hashes are stored in the PHC string format with their parameters, `$scrypt$ln=17,r=8,p=1$SALT$HASH`,
/// so a change of parameters never breaks existing passwords and ``needsRehash(_:)`` can upgrade them
/// at the next sign-in.
public final class PasswordHasher: Sendable {
    public let parameters: PasswordHashingParameters
    private let pool: NIOThreadPool
    private static let saltLength = 16
    private static let hashLength = 32

    /// - Parameter maxConcurrentHashes: how many hashes may run at once; each needs
    ///   ``PasswordHashingParameters/memoryBytes`` of memory, so this bounds memory too.
    public init(parameters: PasswordHashingParameters, maxConcurrentHashes: Int) {
        self.parameters = parameters
        pool = NIOThreadPool(numberOfThreads: max(1, maxConcurrentHashes))
        pool.start()
    }

    public func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    /// Hashes a new password with the configured parameters and a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        let salt = SecureRandom.bytes(Self.saltLength)
        let derived = try await pool.runIfActive {
            try Self.derive(password: password, salt: salt, parameters: parameters, length: Self.hashLength)
        }
        return Self.encode(parameters: parameters, salt: salt, hash: derived)
    }

    /// Whether `password` matches `encodedHash`. A malformed hash never matches.
    public func verify(_ password: String, against encodedHash: String) async throws -> Bool {
        guard let stored = Self.decode(encodedHash) else { return false }
        let derived = try await pool.runIfActive {
            try Self.derive(password: password, salt: stored.salt, parameters: stored.parameters, length: stored.hash.count)
        }
        return ConstantTime.equals(derived, stored.hash)
    }

    /// Whether a stored hash was made with other parameters than the configured ones.
    public func needsRehash(_ encodedHash: String) -> Bool {
        Self.decode(encodedHash)?.parameters != parameters
    }

    static func derive(password: String, salt: [UInt8], parameters: PasswordHashingParameters, length: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            outputByteCount: length,
            rounds: 1 << parameters.logN,
            blockSize: parameters.blockSize,
            parallelism: parameters.parallelism
        )
        return key.withUnsafeBytes { Array($0) }
    }

    static func encode(parameters: PasswordHashingParameters, salt: [UInt8], hash: [UInt8]) -> String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.blockSize),p=\(parameters.parallelism)$\(phcBase64(salt))$\(phcBase64(hash))"
    }

    static func decode(_ encoded: String) -> (parameters: PasswordHashingParameters, salt: [UInt8], hash: [UInt8])? {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let keyValue = pair.split(separator: "=")
            guard keyValue.count == 2, let value = Int(keyValue[1]) else { return nil }
            values[String(keyValue[0])] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"],
              let salt = phcDecode(String(parts[3])), let hash = phcDecode(String(parts[4])), !hash.isEmpty
        else { return nil }
        let parameters = PasswordHashingParameters(logN: logN, blockSize: r, parallelism: p)
        guard (try? parameters.validate()) != nil else { return nil }
        return (parameters, salt, hash)
    }

    /// PHC strings use standard base64 without padding.
    private static func phcBase64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    private static func phcDecode(_ text: String) -> [UInt8]? {
        var padded = text
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map(Array.init)
    }
}
