/// Locks that serialize a transaction against every other one holding the same lock, across processes
/// and server nodes (PostgreSQL advisory locks; SQLite's write transactions are exclusive already).
public enum DatabaseLock: Int64, Sendable {
    /// Held while the schema is migrated, so nodes that start together migrate once.
    case migrations = 0x6761_7465_0001
    /// Held while signing keys are created or rotated, so there is one active key per algorithm.
    case signingKeys = 0x6761_7465_0002
    /// Held while an operator's change is checked against the version they read (`If-Match`) and written, so two
    /// operators never overwrite each other.
    case operatorChanges = 0x6761_7465_0003
    /// Held by the node sweeping expired rows for one batch; other nodes skip the round instead of repeating it.
    case expiredRowSweep = 0x6761_7465_0004
}
