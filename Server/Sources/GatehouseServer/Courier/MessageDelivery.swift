/// One way messages leave the server: the outbox, SMTP, or a webhook.
protocol MessageDelivery: Sendable {
    /// Delivers `message`, or throws a ``DeliveryFailure``.
    func deliver(_ message: CourierMessage) async throws
}

/// Why a delivery failed, and whether trying again could help.
struct DeliveryFailure: Error, CustomStringConvertible {
    var description: String
    /// The receiver refused the message for good (an SMTP 5xx, an HTTP 4xx): retrying would not help.
    var permanent = false
}
