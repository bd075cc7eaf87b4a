import Foundation
import PostgresNIO
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

/// The database engines the store tests run against: SQLite always, PostgreSQL when
/// `GATEHOUSE_TEST_POSTGRES_URL` names a server (`scripts/with-postgres` starts one).
enum TestEngine: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var postgresURL: String? { ProcessInfo.processInfo.environment["GATEHOUSE_TEST_POSTGRES_URL"] }

    static var available: [TestEngine] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    /// Creates an empty database on the test server and returns its URL.
    static func createPostgresDatabase(_ name: String) async throws -> String {
        let base = try #require(postgresURL)
        try await administer(base) { try await $0.query("CREATE DATABASE \(unescaped: name)", logger: TestServer.logger) }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    static func dropPostgresDatabase(_ name: String) async throws {
        let base = try #require(postgresURL)
        try await administer(base) { try await $0.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: TestServer.logger) }
    }

    private static func administer(_ url: String, _ body: (PostgresConnection) async throws -> Void) async throws {
        let location = try PostgresLocation(url: url, printable: url)
        let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration(), id: 1, logger: TestServer.logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
