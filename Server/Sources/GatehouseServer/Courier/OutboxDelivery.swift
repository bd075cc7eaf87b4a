import Logging

/// For development: the message stays in the database (read it with `gatehouse outbox`) and is written to the
/// log, codes included, so a developer can sign up without a mail server. Never for production.
struct OutboxDelivery: MessageDelivery {
    let logger: Logger

    func deliver(_ message: CourierMessage) async throws {
        logger.notice("Outbox (development delivery): \(message.channel.rawValue) to \(message.recipient): \(message.subject) — \(message.body)")
    }
}
