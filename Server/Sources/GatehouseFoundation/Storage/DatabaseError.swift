/// What went wrong with the database, in words an operator can act on.
public struct DatabaseError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Code: Equatable, Sendable {
        case cannotOpen(path: String, reason: String)
        case unsupportedURL(String)
        case duplicate(String)
        case newerSchema(Int)
        case notEmpty(String)
        case notFound(String)
        case corrupt(String)
        case closed
        case unavailable(waited: Duration)
        case callerGone
    }

    package let code: Code

    package static func cannotOpen(path: String, reason: String) -> DatabaseError { .init(code: .cannotOpen(path: path, reason: reason)) }
    package static func unsupportedURL(_ url: String) -> DatabaseError { .init(code: .unsupportedURL(url)) }
    package static func duplicate(_ what: String) -> DatabaseError { .init(code: .duplicate(what)) }
    package static func newerSchema(_ version: Int) -> DatabaseError { .init(code: .newerSchema(version)) }
    package static func notEmpty(_ table: String) -> DatabaseError { .init(code: .notEmpty(table)) }
    package static func notFound(_ what: String) -> DatabaseError { .init(code: .notFound(what)) }
    package static func corrupt(_ what: String) -> DatabaseError { .init(code: .corrupt(what)) }
    package static let closed = DatabaseError(code: .closed)
    /// No connection (PostgreSQL) or turn at the writer (SQLite) came within `waited`: the database is unreachable or
    /// overloaded. Answered as 503 with `Retry-After`, so the caller retries instead of waiting without end.
    package static func unavailable(waited: Duration) -> DatabaseError { .init(code: .unavailable(waited: waited)) }
    /// The request the work was for has gone (its connection closed) before the work committed: nothing was written.
    package static let callerGone = DatabaseError(code: .callerGone)

    /// Whether the database could not be reached in time (``unavailable(waited:)``).
    public var isUnavailable: Bool {
        if case .unavailable = code { return true }
        return false
    }

    /// Whether the work was dropped because its caller had gone (``callerGone``).
    public var isCallerGone: Bool { code == .callerGone }

    /// Whether the error is a unique-key violation, e.g. a username that already exists.
    public var isDuplicate: Bool {
        if case .duplicate = code { return true }
        return false
    }

    public var description: String {
        switch code {
        case .cannotOpen(let path, let reason):
            "Cannot open the database at \(path): \(reason)."
        case .unsupportedURL(let url):
            "The database \(url) is not supported: give a SQLite file path or a postgres:// URL."
        case .duplicate(let what):
            "\(what) already exists."
        case .notEmpty(let table):
            "The target database already holds \(table); copy into an empty database."
        case .notFound(let what):
            "\(what) does not exist."
        case .corrupt(let what):
            "The database holds a value it cannot read: \(what)."
        case .closed:
            "The database was closed; the server is shutting down."
        case .unavailable(let waited):
            "The database did not answer within \(Self.spoken(waited)); try again in a moment."
        case .callerGone:
            "The request's connection closed before its work committed; nothing was written."
        case .newerSchema(let version):
            "The database schema is at version \(version), newer than this Gatehouse knows; upgrade Gatehouse."
        }
    }

    /// `5 seconds`, `1 second`, `500 ms`: a wait as an operator reads it (a bound under a second is not "0 seconds").
    package static func spoken(_ wait: Duration) -> String {
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds % 1000 != 0 else { return milliseconds == 1000 ? "1 second" : "\(milliseconds / 1000) seconds" }
        return "\(milliseconds) ms"
    }
}
