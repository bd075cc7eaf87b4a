import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import Metrics
import NIOPosix
import Synchronization

/// Hashes and verifies passwords with scrypt, off the event loops, a bounded number at a time.
///
/// Hashes are stored in the PHC string format with their parameters, `$scrypt$ln=17,r=8,p=1$SALT$HASH`,
/// so a change of parameters never breaks existing passwords and ``needsRehash(_:)`` can upgrade them
/// at the next sign-in.
public final class PasswordHasher: Sendable {
    public let parameters: PasswordHashingParameters
    private let pool: NIOThreadPool
    private let pending = Atomic<Int>(0)
    /// How many hashes may run at once.
    public let threads: Int
    private static let saltLength = 16
    private static let hashLength = 32

    /// - Parameter maxConcurrentHashes: how many hashes may run at once; each needs
    ///   ``PasswordHashingParameters/memoryBytes`` of memory, so this bounds memory too.
    public init(parameters: PasswordHashingParameters, maxConcurrentHashes: Int) {
        self.parameters = parameters
        threads = max(1, maxConcurrentHashes)
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    public func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    /// Why hashing inside a transaction is a mistake: on SQLite every other write would wait for the hash.
    package static let outsideTransactions = "Hash passwords before the database transaction: a hash would hold the writer."

    /// Hashes running or waiting for a thread of the pool (more than ``threads`` means a queue).
    public var hashesUnderWay: Int { pending.load(ordering: .relaxed) }

    /// How long a password hash took, waiting for the pool included. Made at first use: the metrics backend is
    /// bootstrapped before that.
    private static let hashTimer = Timer(label: "gatehouse_password_hash_duration_seconds", preferredDisplayUnit: .seconds)

    /// Runs one hash's work, counted as under way, timed and traced.
    private func counted(_ work: () async throws -> [UInt8]) async throws -> [UInt8] {
        pending.add(1, ordering: .relaxed)
        defer { pending.subtract(1, ordering: .relaxed) }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { Self.hashTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        return try await Traces.span("password hash", work)
    }

    /// Hashes a new password with the configured parameters and a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        Invariant.check(!TransactionScope.isHoldingWriter, Self.outsideTransactions)
        let password = Self.normalized(password)
        let parameters = self.parameters
        let salt = SecureRandom.bytes(Self.saltLength)
        let derived = try await counted {
            try await pool.runIfActive { try Self.derive(password: password, salt: salt, parameters: parameters, length: Self.hashLength) }
        }
        return Self.encode(parameters: parameters, salt: salt, hash: derived)
    }

    /// Whether `password` matches `encodedHash`. A malformed hash never matches.
    public func verify(_ password: String, against encodedHash: String) async throws -> Bool {
        try await check(password, against: encodedHash) != .none
    }

    /// Which form of a password matched a hash.
    public enum Match: Sendable, Equatable {
        case none
        /// The normalized password (``normalized(_:)``), as every hash since normalizing began is made.
        case normalized
        /// The password exactly as typed, differing from its normalized form: a hash from before passwords were
        /// normalized. It should be replaced by a hash of the normalized form.
        case asTyped
    }

    /// Checks `password` against `encodedHash`: its normalized form first, then, only for a password whose
    /// normalized form differs, as typed (hashes made before normalizing), so old passwords keep working.
    public func check(_ password: String, against encodedHash: String) async throws -> Match {
        Invariant.check(!TransactionScope.isHoldingWriter, Self.outsideTransactions)
        guard let stored = Self.decode(encodedHash) else { return .none }
        let normalized = Self.normalized(password)
        for (candidate, match) in [(normalized, Match.normalized), (password, Match.asTyped)] where match == .normalized || normalized != password {
            let derived = try await counted {
                try await pool.runIfActive { try Self.derive(password: candidate, salt: stored.salt, parameters: stored.parameters, length: stored.hash.count) }
            }
            if ConstantTime.equals(derived, stored.hash) { return match }
        }
        return .none
    }

    /// A password as it is hashed: Unicode NFKC (NIST SP 800-63B §5.1.1.2), so the same password typed on keyboards
    /// or platforms that compose characters differently (`é` as one code point or two, a ligature `ﬁ` or `fi`)
    /// is the same password.
    public static func normalized(_ password: String) -> String {
        password.precomposedStringWithCompatibilityMapping
    }

    /// Whether a stored hash was made with other parameters than the configured ones.
    public func needsRehash(_ encodedHash: String) -> Bool {
        Self.decode(encodedHash)?.parameters != parameters
    }

    package static func derive(password: String, salt: [UInt8], parameters: PasswordHashingParameters, length: Int) throws -> [UInt8] {
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

    package static func encode(parameters: PasswordHashingParameters, salt: [UInt8], hash: [UInt8]) -> String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.blockSize),p=\(parameters.parallelism)$\(phcBase64(salt))$\(phcBase64(hash))"
    }

    package static func decode(_ encoded: String) -> (parameters: PasswordHashingParameters, salt: [UInt8], hash: [UInt8])? {
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
