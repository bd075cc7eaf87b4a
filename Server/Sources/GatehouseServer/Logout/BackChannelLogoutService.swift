import ServiceLifecycle

/// Runs beside the HTTP server on every node: delivers due logout notifications every `interval` until the server
/// shuts down.
public struct BackChannelLogoutService: Service {
    let delivery: BackChannelLogout
    let interval: Duration

    init(delivery: BackChannelLogout, interval: Duration = .seconds(1)) {
        self.delivery = delivery
        self.interval = interval
    }

    /// Delivers due notifications until the service group shuts down gracefully.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await delivery.deliverDue()
                try await Task.sleep(for: interval)
            }
        }
    }
}
