/// Where the data lives: a SQLite file on this machine, or a PostgreSQL database that several nodes share.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file, created when missing (`:memory:` for a database that lives only as long as the process).
    case sqlite(path: String)
    /// A `postgres://` (or `postgresql://`) URL.
    case postgres(url: String)

    /// The location `text` names, written as `--database` takes it: a `postgres://` or `postgresql://` URL, or
    /// else a SQLite file path.
    /// - Throws: ``DatabaseError`` when `text` is a URL of another scheme.
    public init(parsing text: String) throws(DatabaseError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if lowered.contains("://") {
            throw DatabaseError.unsupportedURL(Self.redactingCredentials(text))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The location as it was written.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url
        }
    }

    /// The location with a URL's password left out, safe to print and log.
    public var redacted: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): Self.redactingCredentials(url)
        }
    }

    /// Whether the data is gone when the process ends.
    package var isInMemory: Bool { self == .sqlite(path: ":memory:") }

    /// A database URL with its password removed, safe to print.
    package static func redactingCredentials(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url.range(of: "@", range: schemeEnd.upperBound..<url.endIndex) else {
            return url
        }
        return url[..<schemeEnd.upperBound] + "…" + url[at.lowerBound...]
    }
}
