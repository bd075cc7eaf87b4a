/// Whether the caller a piece of database work is for is still waiting for it: a request whose client gave up (its
/// connection closed) must not commit work it will never hear of — a refresh token rotated for nobody would make the
/// client's retry look like a replay. The HTTP layer sets ``isGone`` for each request; the database checks it before a
/// transaction commits and before an autocommitted statement runs (``ScopedDatabase``).
public enum CallerPresence {
    /// Answers whether the running request's caller has gone; `nil` outside a request (the CLI, background services).
    @TaskLocal public static var isGone: (@Sendable () -> Bool)?
}
