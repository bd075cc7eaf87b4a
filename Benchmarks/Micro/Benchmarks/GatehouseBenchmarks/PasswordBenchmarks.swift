import Benchmark
import GatehouseServer

/// The server's password hasher at its production parameters (scrypt N=2^17, r=8, p=1): by design the only
/// expensive step of a sign-in.
enum PasswordBenchmarks {
    static func register() {
        let parameters = PasswordHashingParameters.owaspDefault
        let configuration = Benchmark.Configuration(maxDuration: .seconds(5), maxIterations: 50)
        Benchmark("password hash (scrypt N=2^\(parameters.logN))", configuration: configuration) { benchmark, hasher in
            for _ in benchmark.scaledIterations {
                blackHole(try await hasher.hash("correct horse battery staple"))
            }
        } setup: {
            PasswordHasher(parameters: parameters, maxConcurrentHashes: 1)
        }
        Benchmark("password verify (scrypt N=2^\(parameters.logN))", configuration: configuration) { (benchmark: Benchmark, setup: StoredPassword) in
            for _ in benchmark.scaledIterations {
                blackHole(try await setup.hasher.verify("correct horse battery staple", against: setup.hash))
            }
        } setup: {
            let hasher = PasswordHasher(parameters: parameters, maxConcurrentHashes: 1)
            return StoredPassword(hasher: hasher, hash: try await hasher.hash("correct horse battery staple"))
        }
    }

    struct StoredPassword: Sendable {
        let hasher: PasswordHasher
        let hash: String
    }
}
