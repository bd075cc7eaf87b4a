/// One way messages leave the server: the outbox, SMTP, or a webhook.
package protocol MessageDelivery: Sendable {
    /// Delivers `message`, or throws a ``DeliveryFailure``.
    func deliver(_ message: CourierMessage) async throws
}

/// Why a delivery failed, and whether trying again could help.
package struct DeliveryFailure: Error, CustomStringConvertible {
    package var description: String
    /// The receiver refused the message for good (an SMTP 5xx, an HTTP 4xx): retrying would not help.
    package var permanent = false
}
