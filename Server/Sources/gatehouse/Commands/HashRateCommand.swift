import ArgumentParser
import Foundation
import GatehouseFoundation
import GatehouseServer

/// `gatehouse hash-rate`: how many password hashes this machine computes per second at the configured parameters.
struct HashRateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-rate",
        abstract: "Measure password hashes per second on every core, at the configured password_hashing parameters.",
        discussion: """
            Sign-ins cannot go faster than this: each costs one hash by design. Use it to choose password_hashing
            for your machines (OWASP suggests a cost that takes a noticeable fraction of a second), and as the
            baseline the load benchmark reports sign-in throughput against.
            """
    )

    @Option(help: "Seconds to measure for.")
    var seconds: Double = 5
    @Option(help: "Hashes at once (default: one per core).")
    var concurrency: Int?
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        let hashesPerSecond: Double
        let concurrency: Int
        let parameters: String

        enum CodingKeys: String, CodingKey {
            case concurrency, parameters
            case hashesPerSecond = "hashes_per_second"
        }
    }

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600.") }
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 256.") }
    }

    func run() async throws {
        let parameters = try store.configuration().passwordHashing
        let lanes = concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        let hasher = PasswordHasher(parameters: parameters, maxConcurrentHashes: lanes)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        let started = clock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<lanes {
                group.addTask {
                    var done = 0
                    while clock.now < deadline {
                        _ = try await hasher.hash("hash rate measurement")
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = started.duration(to: clock.now)
        try await hasher.shutdown()
        let rate = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let described = "scrypt ln=\(parameters.logN),r=\(parameters.blockSize),p=\(parameters.parallelism)"
        if output.json { return try JSONOutput.print(Result(hashesPerSecond: rate, concurrency: lanes, parameters: described)) }
        print(String(format: "%.2f hashes per second (%@, %d at once)", rate, described, lanes))
    }
}
