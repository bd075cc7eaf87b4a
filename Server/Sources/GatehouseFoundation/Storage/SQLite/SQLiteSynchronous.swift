/// How SQLite waits for the disk at a commit (`sqlite_synchronous` in the configuration file), in WAL mode.
public enum SQLiteSynchronous: String, Sendable, Codable, CaseIterable {
    /// The WAL is synced at checkpoints only: a killed process loses nothing committed, but a power cut or a kernel
    /// crash may lose the last commits (a refresh token rotated just before may come back). The default.
    case normal
    /// The WAL is synced at every commit: nothing committed is lost even on a power cut, for an `fsync` per write
    /// transaction.
    case full
}
