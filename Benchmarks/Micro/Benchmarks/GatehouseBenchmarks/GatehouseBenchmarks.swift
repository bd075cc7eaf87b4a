import Benchmark

/// Every micro benchmark; `scripts/benchmark-micro` runs them (`swift package benchmark` in Benchmarks/Micro).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 10,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )
    SigningBenchmarks.register()
    PasswordBenchmarks.register()
    OneTimePasswordBenchmarks.register()
    PINBenchmarks.register()
    RequestBenchmarks.register()
}
