/// Whether the caller a piece of database work is for is still waiting for it: a request whose client gave up (its
/// connection closed) must not commit work it will never hear of — a refresh token rotated for nobody would make the
/// client's retry look like a replay. The HTTP layer sets ``current`` for each request; the database checks it before a
/// transaction commits and before an autocommitted statement runs (``ScopedDatabase``).
public final class CallerPresence: Sendable {
    /// The running request's caller; `nil` outside a request (the CLI, background services).
    ///
    /// A class, not a closure, in the task-local: a task-local of optional function type crashed optimized builds
    /// (Swift 6.3, in `swift_task_localValuePush`).
    @TaskLocal public static var current: CallerPresence?

    private let hasGone: @Sendable () -> Bool

    /// A caller that has gone once `hasGone` says so.
    public init(hasGone: @escaping @Sendable () -> Bool) {
        self.hasGone = hasGone
    }

    /// Whether the caller no longer waits for the result.
    public var isGone: Bool { hasGone() }

    /// Runs `work` as no request's: background work a request starts (a task inherits its task-local values) goes on
    /// whether or not the request's client is still there — a message queued by a sign-in is delivered after the
    /// answer went out and the connection closed.
    public static func unattended<T>(_ work: () async throws -> T) async rethrows -> T {
        try await $current.withValue(nil) { try await work() }
    }
}
