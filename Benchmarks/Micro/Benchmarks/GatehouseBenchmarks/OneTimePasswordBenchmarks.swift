import Benchmark
import GatehouseServer

/// Checking a TOTP code the way a sign-in does: every step of the ±1 window, compared in constant time.
enum OneTimePasswordBenchmarks {
    static func register() {
        let generator = OneTimePassword(secret: Array("12345678901234567890".utf8))
        let now: Int64 = 1_700_000_000
        let code = generator.code(at: now)
        Benchmark("TOTP verify (SHA-1, ±1 step)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(generator.matchingStep(for: code, at: now))
            }
        }
    }
}
