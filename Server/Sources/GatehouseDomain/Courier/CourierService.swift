import ServiceLifecycle

/// Runs beside the HTTP server: looks for due messages (retries, and those queued by other nodes) every
/// `interval` seconds until the server shuts down.
public struct CourierService: Service {
    package let courier: Courier
    package let interval: Duration

    /// A service that delivers `courier`'s due messages every `interval`.
    public init(courier: Courier, interval: Duration = .seconds(1)) {
        self.courier = courier
        self.interval = interval
    }

    /// Delivers due messages until the service group shuts down gracefully.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await courier.deliverDue()
                try await Task.sleep(for: interval)
            }
        }
    }
}
