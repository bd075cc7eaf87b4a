import ServiceLifecycle

/// Does `action` as soon as the service group starts its graceful shutdown. Listed after the HTTP server, it runs
/// before the server waits for the responses still open, so streams that would run for minutes (a QR page's status)
/// end at once and the node stops within seconds.
public struct ShutdownHook: Service {
    let action: @Sendable () async -> Void

    /// A hook that runs `action` once, when the shutdown begins.
    public init(_ action: @escaping @Sendable () async -> Void) {
        self.action = action
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await action()
    }
}

extension IdentityServer {
    /// Ends what would keep the server from stopping: the QR pages' status streams (their browsers reconnect to
    /// another node).
    public func endOpenStreams() {
        appLoginWatcher.stop()
    }
}
