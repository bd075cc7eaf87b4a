/// What lay under a network or storage failure: a short summary that is safe to show and log, and the error that
/// caused it, for logs, diagnostics and retry decisions (a `URLError`, a Keychain status, a file system error).
///
/// Two causes are equal when their summaries are, so errors stay easy to compare in tests and `switch` statements.
public struct ErrorCause: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// A few words on what failed, such as `connection refused`.
    public let summary: String
    /// The error the SDK caught, when there was one.
    public let underlyingError: (any Error)?

    /// A cause described by `summary`, keeping the error that led to it when there is one.
    public init(_ summary: String, underlyingError: (any Error)? = nil) {
        self.summary = summary
        self.underlyingError = underlyingError
    }

    /// A cause described by the error itself.
    public init(_ error: any Error) {
        self.init(String(describing: error), underlyingError: error)
    }

    public init(stringLiteral summary: String) {
        self.init(summary)
    }

    public var description: String { summary }

    public static func == (lhs: ErrorCause, rhs: ErrorCause) -> Bool { lhs.summary == rhs.summary }
}
