import Foundation
import Logging
import NIOPosix
import PostgresNIO

@testable import GatehouseFoundation
@testable import GatehouseServer

/// Helpers that give each test its own database in a temporary folder.
enum TestServer {
    static let logger: Logger = {
        var logger = Logger(label: "gatehouse-tests")
        logger.logLevel = .warning
        return logger
    }()

    /// A fresh temporary folder, removed by the caller with `FileManager.removeItem`.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A configuration with cheap password hashing and a database in `folder`.
    static func configuration(in folder: URL, port: Int = 0, issuer: String? = nil) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.database = .sqlite(path: folder.appendingPathComponent("gatehouse.sqlite").path)
        configuration.passwordHashing = PasswordHashingParameters(logN: 10, blockSize: 8, parallelism: 1)
        configuration.maxConcurrentHashes = 2
        configuration.port = port
        configuration.issuer = issuer
        return configuration
    }

    /// Starts an identity server on a fresh database of `engine`, runs `body`, then shuts it down and
    /// removes the database.
    @discardableResult
    static func withServer<T>(
        engine: TestEngine = .sqlite, clock: UnixClock = .system, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (IdentityServer) async throws -> T
    ) async throws -> T {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = configuration(in: folder, issuer: "http://127.0.0.1:8080")
        var postgresDatabase: String?
        if engine == .postgres {
            let name = "gatehouse_swift_" + SecureRandom.bytes(6).map { String(format: "%02x", $0) }.joined()
            configuration.database = .postgres(url: try await TestEngine.createPostgresDatabase(name))
            configuration.secret = String(repeating: "t", count: 40)
            // A hundred test servers run at once against one PostgreSQL: ten connections each keep them under its
            // max_connections (scripts/with-postgres), and work waits its turn longer on a machine that busy. A test
            // about the pool sets its own.
            configuration.postgresConnections = 10
            configuration.databaseWait = 60
            postgresDatabase = name
        }
        configure(&configuration)
        do {
            let server = try await IdentityServer.start(configuration: configuration, logger: logger, clock: clock)
            do {
                let result = try await body(server)
                await server.shutdown()
                if let postgresDatabase { try await TestEngine.dropPostgresDatabase(postgresDatabase) }
                return result
            } catch {
                await server.shutdown()
                if let postgresDatabase { try? await TestEngine.dropPostgresDatabase(postgresDatabase) }
                throw error
            }
        } catch let error as PSQLError {
            throw DescribedDatabaseError(error)
        }
    }

    /// A PostgreSQL error with what the server said. PostgresNIO's own description hides it, so that it cannot leak
    /// from a product's logs; a failed test should say why it failed.
    struct DescribedDatabaseError: Error, CustomStringConvertible {
        let description: String
        init(_ error: PSQLError) { description = String(reflecting: error) }
    }

    /// Runs `body` with an identity server listening on a loopback port, its issuer being that address (or
    /// `hostName` and the port: passkeys need `localhost`, a domain, where browsers refuse `127.0.0.1`).
    ///
    /// The port is free when chosen but the issuer must name it before the server starts, so another socket can take
    /// it in between (the tests run in parallel, and every connection they open takes a port of the same range): a
    /// server that cannot listen is started again on another port, and never left waiting for a start that failed.
    static func withLiveServer<T: Sendable>(
        engine: TestEngine = .sqlite, clock: UnixClock = .system, hostName: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (IdentityServer, URL) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            let port = try await freePort()
            do {
                return try await withServer(
                    engine: engine, clock: clock,
                    configure: {
                        configure(&$0)
                        $0.port = port
                        $0.issuer = hostName.map { "http://\($0):\(port)" }
                    }
                ) { server in
                    let running = AsyncStream<Int>.makeStream()
                    let application = try GatehouseApplication.make(server: server, logger: logger) { port in running.continuation.yield(port) }
                    let task = Task {
                        // A server that stops, or never starts, ends the stream: the wait below cannot outlive it.
                        defer { running.continuation.finish() }
                        try await application.run()
                    }
                    var iterator = running.stream.makeAsyncIterator()
                    guard await iterator.next() != nil else {
                        let failure: (any Error)? = if case .failure(let error) = await task.result { error } else { nil }
                        throw ListenFailure(port: port, underlying: failure)
                    }
                    defer { task.cancel() }
                    let result = try await body(server, URL(string: server.issuer)!)
                    task.cancel()
                    _ = try? await task.value
                    return result
                }
            } catch let failure as ListenFailure where attempt < 5 {
                logger.warning(
                    "The live server could not listen; trying another port",
                    metadata: ["port": "\(failure.port)", "error": "\(failure.underlying.map { "\($0)" } ?? "none")"])
                attempt += 1
            }
        }
    }

    /// A live server that stopped before it listened, usually because its port was taken after it was chosen.
    struct ListenFailure: Error, CustomStringConvertible {
        let port: Int
        let underlying: (any Error)?
        var description: String { "The live server did not start listening on port \(port): \(underlying.map { "\($0)" } ?? "it stopped first")" }
    }

    /// A TCP port that was free a moment ago.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
