import Crypto
import Foundation
import GatehouseProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tokens in files readable only by their owner, encrypted with AES-256-GCM under a key kept in the same
/// owner-only folder: the store for Linux, where there is no keychain.
public struct EncryptedFileTokenStorage: TokenStorage {
    /// The folder holding the sealed files and their key, readable by this user only.
    public let directory: URL

    /// - Parameter directory: created with mode 0700 when missing; an existing one must not be readable by others.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The bytes stored for `account`, decrypted, or `nil` when there is no file.
    public func read(account: String) async throws -> [UInt8]? {
        let path = file(for: account).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let sealed = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return Array(try AES.GCM.open(box, using: try key(), authenticating: Data(account.utf8)))
        } catch {
            throw TokenStorageError.unreadable(path)
        }
    }

    /// Seals `bytes` for `account` and replaces its file atomically, mode 0600.
    public func write(_ bytes: [UInt8], account: String) async throws {
        let sealed = try AES.GCM.seal(bytes, using: try key(), authenticating: Data(account.utf8))
        guard let combined = sealed.combined else { throw TokenStorageError.unreadable(directory.path) }
        try Self.writeOwnerOnly(combined, to: file(for: account).path, replacing: true)
    }

    /// Deletes the file of `account`, if there is one.
    public func remove(account: String) async throws {
        let path = file(for: account).path
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    private func file(for account: String) -> URL {
        let name = Hex.encode(SHA256.hash(data: Data(account.utf8)))
        return directory.appendingPathComponent(name + ".tokens")
    }

    /// The folder's key, created once.
    private func key() throws -> SymmetricKey {
        try prepareDirectory()
        let path = directory.appendingPathComponent("tokens.key").path
        if !FileManager.default.fileExists(atPath: path) {
            let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            do {
                try Self.writeOwnerOnly(fresh, to: path, replacing: false)
            } catch TokenStorageError.exists {
                // Another process created it first; use theirs.
            }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count == 32 else { throw TokenStorageError.unreadable(path) }
        return SymmetricKey(data: data)
    }

    private func prepareDirectory() throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            let permissions = (try manager.attributesOfItem(atPath: directory.path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
            guard isDirectory.boolValue, permissions & 0o077 == 0 else { throw TokenStorageError.notPrivate(directory.path) }
        } else {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    /// Writes `data` to a new owner-only file and moves it into place, so a crash never leaves half a file.
    private static func writeOwnerOnly(_ data: Data, to path: String, replacing: Bool) throws {
        let temporary = path + ".\(UInt32.random(in: .min ... .max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw TokenStorageError.unreadable(path) }
        let written = data.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        guard written == data.count else {
            unlink(temporary)
            throw TokenStorageError.unreadable(path)
        }
        if replacing {
            guard rename(temporary, path) == 0 else { unlink(temporary); throw TokenStorageError.unreadable(path) }
        } else {
            // link() fails if the target exists, so two processes never both create the key.
            defer { unlink(temporary) }
            guard link(temporary, path) == 0 else { throw TokenStorageError.exists }
        }
    }
}

/// Why stored tokens could not be read or written.
public enum TokenStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is damaged or was encrypted with another key; sign in again.
    case unreadable(String)
    /// The folder is readable by other users; fix its permissions (`chmod 700`).
    case notPrivate(String)
    /// A file that had to be created new already exists.
    case exists
    /// This storage cannot guard tokens with the ``SessionProtection`` asked for (only the Keychain can).
    case protectionUnavailable(SessionProtection)

    public var description: String {
        switch self {
        case .unreadable(let path): "The stored tokens at \(path) cannot be read; sign in again."
        case .notPrivate(let path): "The token folder \(path) is readable by other users; run `chmod 700 \(path)`."
        case .exists: "The file exists already."
        case .protectionUnavailable(let protection):
            "This token storage cannot protect a session with \(protection.rawValue); use KeychainTokenStorage on Apple platforms."
        }
    }
}

/// `write(2)`, named apart from ``TokenStorage/write(_:account:)``.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
