/// The database engine behind a ``Database``: SQLite in the process, or a PostgreSQL server shared by nodes.
public enum DatabaseEngine: String, Sendable {
    case sqlite
    case postgresql
}
