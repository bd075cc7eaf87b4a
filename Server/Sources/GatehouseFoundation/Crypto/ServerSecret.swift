import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server secret: the root of the key that encrypts signing keys at rest.
///
/// Taken from configuration (`secret` / `GATEHOUSE_SECRET`) when given; otherwise read from a file beside
/// the database, which is created once with owner-only permissions. It is never logged.
public struct ServerSecret: Sendable {
    package let bytes: [UInt8]

    /// The minimum length of a configured secret, so that it carries at least 256 bits when random.
    package static let minimumConfiguredLength = 32

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Resolves the secret: the configured value if any, else the file at `filePath` (created if missing).
    public static func resolve(configured: String?, filePath: String, logger: Logger) throws -> ServerSecret {
        if let configured, !configured.isEmpty {
            guard configured.count >= minimumConfiguredLength else {
                throw ConfigurationError(
                    "The server secret must be at least \(minimumConfiguredLength) characters long; generate one with `openssl rand -base64 48`.")
            }
            return ServerSecret(bytes: Array(configured.utf8))
        }
        let manager = FileManager.default
        if manager.fileExists(atPath: filePath) {
            let attributes = try manager.attributesOfItem(atPath: filePath)
            if let permissions = attributes[.posixPermissions] as? NSNumber, permissions.intValue & 0o077 != 0 {
                throw ConfigurationError("The server secret file \(filePath) is readable by other users; run `chmod 600 \(filePath)`.")
            }
            let text = try String(contentsOfFile: filePath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let data = Data(base64Encoded: text), data.count >= 32 else {
                throw ConfigurationError("The server secret file \(filePath) is not a base64 secret of at least 32 bytes.")
            }
            return ServerSecret(bytes: Array(data))
        }
        let bytes = SecureRandom.bytes(32)
        let contents = Data((Data(bytes).base64EncodedString() + "\n").utf8)
        // Created exclusively with mode 0600 in one system call, so the secret is never readable by others.
        let descriptor = open(filePath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError("Cannot create the server secret file \(filePath); check that its folder exists and is writable.")
        }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count else {
            throw ConfigurationError("Cannot write the server secret file \(filePath).")
        }
        logger.notice("Generated a new server secret", metadata: ["file": "\(filePath)"])
        return ServerSecret(bytes: bytes)
    }
}
