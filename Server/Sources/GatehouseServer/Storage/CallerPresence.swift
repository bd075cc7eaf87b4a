/// Whether the caller a piece of database work is for is still waiting for it: a request whose client gave up (its
/// connection closed) must not commit work it will never hear of — a refresh token rotated for nobody would make the
/// client's retry look like a replay. The HTTP layer sets ``isGone`` for each request; the database checks it before a
/// transaction commits and before an autocommitted statement runs (``ScopedDatabase``).
public enum CallerPresence {
    /// Answers whether the running request's caller has gone; `nil` outside a request (the CLI, background services).
    @TaskLocal public static var isGone: (@Sendable () -> Bool)?

    /// Runs `work` as no request's: background work a request starts (a task inherits its task-local values) goes on
    /// whether or not the request's client is still there — a message queued by a sign-in is delivered after the
    /// answer went out and the connection closed.
    public static func unattended<T>(_ work: () async throws -> T) async rethrows -> T {
        try await $isGone.withValue(nil) { try await work() }
    }
}
