import ArgumentParser
import Foundation
import GatehouseFoundation
import GatehouseServer
import Logging

/// `gatehouse keys …`: list and rotate the token signing keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage token signing keys.",
        subcommands: [List.self, Rotate.self]
    )

    struct Summary: Encodable {
        var kid: String
        var algorithm: String
        var status: String
        var createdAt: Int64
        var activatesAt: Int64
        var retiredAt: Int64?
        var publishedUntil: Int64?

        init(_ key: AdminKey) {
            kid = key.kid
            algorithm = key.algorithm
            status = key.status.rawValue
            createdAt = key.createdAt
            activatesAt = key.activatesAt
            retiredAt = key.retiredAt
            publishedUntil = key.publishedUntil
        }

        enum CodingKeys: String, CodingKey {
            case kid, algorithm, status
            case createdAt = "created_at"
            case activatesAt = "activates_at"
            case retiredAt = "retired_at"
            case publishedUntil = "published_until"
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let keys = try await store.withOperations { try await $0.signingKeys() }.map(Summary.init)
            if output.json { return try JSONOutput.print(keys) }
            guard !keys.isEmpty else { return print("No signing keys yet; `gatehouse serve` creates them on first start.") }
            var table = TextTable(headers: ["KID", "ALG", "STATUS", "SIGNS FROM", "SIGNS UNTIL", "PUBLISHED UNTIL"])
            table.rows = keys.map {
                [
                    $0.kid, $0.algorithm, $0.status, Timestamp.format($0.activatesAt), Timestamp.format($0.retiredAt),
                    Timestamp.format($0.publishedUntil),
                ]
            }
            print(table.render())
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create new signing keys that sign at once; the previous keys stay in the JWKS until tokens they signed have expired.",
            discussion: """
                For a key that must stop signing now. Running servers pick up the new keys within 30 seconds; relying parties                 that cached the key set meet the new kid before they fetch it again. keys.rotate_every rotates on a schedule                 instead, publishing each key keys.publish_ahead before it signs.
                """
        )
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let keys = try await store.withOperations { try await $0.rotateSigningKeys() }.map(Summary.init)
            if output.json { return try JSONOutput.print(keys) }
            for key in keys { print("New active \(key.algorithm) key \(key.kid).") }
            print("Previous keys stay published until the tokens they signed expire.")
        }
    }
}
