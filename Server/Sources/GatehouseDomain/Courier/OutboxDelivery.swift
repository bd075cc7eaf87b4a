import Logging

/// For development: the message stays in the database, where `gatehouse outbox` reads it, so a developer can
/// sign up without a mail server. The log says only that it arrived: bodies hold codes, and logs travel
/// further than the database. Never for production.
package struct OutboxDelivery: MessageDelivery {
    package let logger: Logger

    package func deliver(_ message: CourierMessage) async throws {
        logger.notice(
            "Outbox (development delivery): \(message.channel.rawValue) to \(message.recipient): \(message.subject); read it with `gatehouse outbox --to \(message.recipient)`"
        )
    }
}
