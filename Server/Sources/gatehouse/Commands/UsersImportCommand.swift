import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users import FILE`: many users at once, from JSON lines, all or none.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import users from a file of JSON lines, all or none.",
            discussion: """
                One object per line: {"username": "ada", "email": "ada@example.com", "given_name": "Ada",
                "family_name": "Lovelace", "password_hash": "$scrypt$ln=17,r=8,p=1$SALT$HASH"} — or "password" in clear
                instead of "password_hash" (hashed here, slowly, and held to the password policy). "name",
                "email_verified" (default true) and "locale" (a shipped language: en, de, fr, es, ja, ar) are optional. A mistake on any line, or a username or email that
                exists, imports nothing. Use - to read standard input.
                """
        )

        @Argument(help: "The file of JSON lines, or - for standard input.")
        var file: String
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        struct Result: Encodable {
            let imported: Int
            let seconds: Double
        }

        func run() async throws {
            let started = Date()
            let data: Data
            do {
                data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandError("Cannot read \(file): \(error.localizedDescription)")
            }
            let count = try await store.withDatabase { configuration, database in
                let records = try Self.parse(data, policy: configuration.passwords)
                let hashes = try await Self.hashes(for: records, parameters: configuration.passwordHashing)
                do {
                    try await UserStore(database: database).importUsers(records, passwordHashes: hashes)
                } catch let error as DatabaseError where error.isDuplicate {
                    throw CommandError("\(error) Nothing was imported.")
                }
                return records.count
            }
            let seconds = Date().timeIntervalSince(started)
            if output.json { return try JSONOutput.print(Result(imported: count, seconds: seconds)) }
            print("Imported \(count) users in \(String(format: "%.1f", seconds)) s.")
        }

        /// The records on the non-empty lines, each validated; the first bad line stops everything.
        static func parse(_ data: Data, policy: PasswordPolicy) throws -> [UserImportRecord] {
            let decoder = JSONDecoder()
            var records: [UserImportRecord] = []
            for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { continue }
                do {
                    let record = try decoder.decode(UserImportRecord.self, from: line)
                    try record.validate(policy: policy)
                    records.append(record)
                } catch let error as DecodingError {
                    throw CommandError("Line \(index + 1) is not a user object: \(Self.describe(error)). Nothing was imported.")
                } catch {
                    throw CommandError("Line \(index + 1): \(error) Nothing was imported.")
                }
            }
            guard !records.isEmpty else { throw CommandError("The file holds no users.") }
            return records
        }

        /// The stored hash of each record: the given one, or the clear password hashed, on every core.
        static func hashes(for records: [UserImportRecord], parameters: PasswordHashingParameters) async throws -> [String] {
            let clear = records.indices.filter { records[$0].passwordHash == nil }
            var hashes = records.map { $0.passwordHash ?? "" }
            guard !clear.isEmpty else { return hashes }
            let hasher = PasswordHasher(parameters: parameters, maxConcurrentHashes: ProcessInfo.processInfo.activeProcessorCount)
            do {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for index in clear {
                        let password = records[index].password ?? ""
                        group.addTask { (index, try await hasher.hash(password)) }
                    }
                    for try await (index, hash) in group { hashes[index] = hash }
                }
            } catch {
                try? await hasher.shutdown()
                throw error
            }
            try await hasher.shutdown()
            return hashes
        }

        private static func describe(_ error: DecodingError) -> String {
            switch error {
            case .keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
            case .typeMismatch(_, let context), .valueNotFound(_, let context):
                "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
            case .dataCorrupted: "it is not valid JSON"
            @unknown default: "it cannot be read"
            }
        }
    }
}
