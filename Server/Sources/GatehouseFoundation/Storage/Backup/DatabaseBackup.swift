import Foundation
import Logging
import SQLKit

/// Backups of a serving database: a consistent copy in one new SQLite file, checked whole before it counts, and its
/// restore into an empty database of either engine (`gatehouse backup`, `gatehouse restore`).
public enum DatabaseBackup {
    /// Copies `database`, as it was at one moment, into a new SQLite file at `path` that only its owner can read, while
    /// the database goes on serving; then checks the copy whole.
    ///
    /// A SQLite database is copied page by page by `VACUUM INTO`, in one read transaction: writers go on meanwhile, and
    /// the copy is the database as that transaction saw it. A PostgreSQL database is read in one snapshot and written
    /// into a new SQLite file by ``DatabaseCopier``, and the copy's rows must be the rows read.
    /// - Returns: the copy's verification.
    /// - Throws: ``BackupError`` when `path` exists or the copy is not sound; a copy that fails is removed.
    public static func write(_ database: any Database, to path: String, logger: Logger) async throws -> DatabaseVerification {
        guard path != ":memory:" else { throw BackupError("A backup is a file: give its path.") }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw BackupError("\(path) already exists; a backup is written to a new file.")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder) else { throw BackupError("The folder \(folder) does not exist.") }
        // The copy holds what the database holds: only its owner may read it, from its first byte.
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw BackupError("\(path) cannot be created.")
        }
        do {
            var copied: [(table: String, rows: Int)]?
            switch database.engine {
            case .sqlite:
                try await database.read { sql in try await sql.raw("VACUUM INTO \(bind: path)").run() }
            case .postgresql:
                copied = try await DatabaseOpener.with(.sqlite(path: path), logger: logger, migrate: true) { copy in
                    try await DatabaseCopier(source: database, target: copy).copy()
                }
            }
            let verification = try await DatabaseOpener.with(.sqlite(path: path), logger: logger, migrate: false) {
                try await DatabaseVerification.verify($0)
            }
            var problems = verification.problems
            for (table, rows) in copied ?? [] where verification.rows(of: table) != rows {
                problems.append("\(table) had \(rows) rows in the snapshot and \(verification.rows(of: table) ?? 0) in the copy.")
            }
            guard problems.isEmpty else { throw BackupError("The copy is not sound, so it was removed: \(problems.joined(separator: " "))") }
            return verification
        } catch {
            removeFile(path)
            throw error
        }
    }

    /// Copies the backup at `path` into `target`, which must hold no users, clients or keys, after checking the backup
    /// whole; then checks the target and compares its rows with the backup's, table by table.
    /// - Returns: the target's verification.
    /// - Throws: ``BackupError`` when the backup is missing or not sound, or the target's rows differ from it;
    ///   ``DatabaseError`` when the target is not empty (nothing is written then).
    public static func restore(from path: String, into target: any Database, logger: Logger) async throws -> DatabaseVerification {
        guard FileManager.default.fileExists(atPath: path) else { throw BackupError("There is no backup at \(path).") }
        let backup = try await DatabaseOpener.with(.sqlite(path: path), logger: logger, migrate: false) { source in
            let verification = try await DatabaseVerification.verify(source)
            guard verification.isSound else {
                throw BackupError("The backup at \(path) is not sound: \(verification.problems.joined(separator: " "))")
            }
            _ = try await DatabaseCopier(source: source, target: target).copy()
            return verification
        }
        let restored = try await DatabaseVerification.verify(target)
        var problems = restored.problems
        for table in backup.tables where restored.rows(of: table.name) != table.rows {
            problems.append("\(table.name) has \(table.rows) rows in the backup and \(restored.rows(of: table.name) ?? 0) restored.")
        }
        guard problems.isEmpty else { throw BackupError("The restored database differs from the backup: \(problems.joined(separator: " "))") }
        return restored
    }

    /// Removes a SQLite file with its write-ahead log.
    private static func removeFile(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
