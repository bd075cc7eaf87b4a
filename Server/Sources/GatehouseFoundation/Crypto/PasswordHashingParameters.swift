/// scrypt cost parameters. The default is OWASP's current recommendation for scrypt:
/// N = 2^17, r = 8, p = 1 (128 MiB of memory per hash).
public struct PasswordHashingParameters: Sendable, Equatable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    /// Block size r.
    public var blockSize: Int
    /// Parallelism p.
    public var parallelism: Int

    public init(logN: Int, blockSize: Int, parallelism: Int) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    public static let owaspDefault = PasswordHashingParameters(logN: 17, blockSize: 8, parallelism: 1)

    /// Memory one hash needs, in bytes: 128 · r · N.
    public var memoryBytes: Int { 128 * blockSize * (1 << logN) }

    package func validate() throws {
        guard (10...22).contains(logN), (1...32).contains(blockSize), (1...16).contains(parallelism) else {
            throw ConfigurationError("Password hashing parameters out of range: logN must be 10…22, blockSize 1…32, parallelism 1…16.")
        }
    }
}
