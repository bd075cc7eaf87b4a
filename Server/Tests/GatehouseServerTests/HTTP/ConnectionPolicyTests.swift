import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Connection limits")
struct ConnectionPolicyTests {
    @Test("the limit leaves a reserve under the open-file limit, and a configured limit must fit")
    func limitUnderOpenFiles() throws {
        var policy = ConnectionPolicy()
        #expect(try policy.connectionLimit(openFiles: 1024) == 896)
        #expect(try policy.connectionLimit(openFiles: 65_536) == 65_408)
        policy.maxConnections = 500
        #expect(try policy.connectionLimit(openFiles: 1024) == 500)
        policy.maxConnections = 5000
        #expect(throws: ConfigurationError.self) { try policy.connectionLimit(openFiles: 1024) }
    }

    @Test("timeouts are checked")
    func validation() throws {
        var policy = ConnectionPolicy()
        try policy.validate()
        policy.headerTimeout = 0
        #expect(throws: ConfigurationError.self) { try policy.validate() }
    }

    @Test("pressure starts at three quarters of the limit")
    func pressure() {
        let gauge = ConnectionGauge(limit: 8, logger: TestServer.logger)
        for _ in 0..<5 { gauge.opened() }
        #expect(!gauge.isUnderPressure && gauge.admitsAnother())
        gauge.opened()
        #expect(gauge.isUnderPressure && gauge.admitsAnother())
        gauge.opened()
        gauge.opened()
        #expect(!gauge.admitsAnother())
        gauge.closed()
        #expect(gauge.admitsAnother())
    }
}
