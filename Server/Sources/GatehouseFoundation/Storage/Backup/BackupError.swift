/// Why a backup or a restore did not happen, in words an operator can act on.
public struct BackupError: Error, CustomStringConvertible, Sendable {
    public let description: String

    package init(_ description: String) { self.description = description }
}
