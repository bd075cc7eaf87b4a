import Foundation
import GatehouseFoundation
import Logging
import NIOConcurrencyHelpers

/// Sends emails and text messages: queues each in the database, delivers it right away in the background,
/// and retries failures with backoff (``CourierService`` runs the retries). A flow never waits for delivery
/// and never fails because of it; the person can ask for the code again.
public final class Courier: Sendable {
    package let queue: CourierQueue
    package let configuration: CourierConfiguration
    package let logger: Logger
    /// The messages' words in every language.
    package let catalog: MessageCatalog
    /// The language of a message to someone whose own language is not known (`default_locale`).
    package let defaultLanguage: Language
    private let deliveries: [MessageChannel: any MessageDelivery]
    /// One delivery pass at a time in this process (other nodes are kept apart by the queue's claims), and
    /// whether a call arrived during it.
    private let pass = NIOLockedValueBox((running: false, requested: false))

    package init(
        queue: CourierQueue, configuration: CourierConfiguration, clientName: String, logger: Logger, catalog: MessageCatalog = .standard,
        defaultLanguage: Language = .base
    ) {
        self.queue = queue
        self.configuration = configuration
        self.logger = logger
        self.catalog = catalog
        self.defaultLanguage = defaultLanguage
        var deliveries: [MessageChannel: any MessageDelivery] = [:]
        for channel in MessageChannel.allCases {
            let settings = configuration.settings(for: channel)
            deliveries[channel] =
                switch settings.delivery {
                case .outbox: OutboxDelivery(logger: logger)
                case .smtp: SMTPDelivery(settings: settings.smtp ?? SMTPSettings(host: "127.0.0.1"), sender: configuration.sender, clientName: clientName)
                case .webhook: WebhookDelivery(settings: settings.webhook ?? WebhookSettings(url: ""), sender: configuration.sender)
                }
        }
        self.deliveries = deliveries
    }

    /// The language to write to `user` in: the one they chose, else `fallback` (the language of the page they are on),
    /// else the default.
    package func language(of user: User?, otherwise fallback: Language? = nil) -> Language {
        user?.locale.flatMap { Language(tag: $0) } ?? fallback ?? defaultLanguage
    }

    /// Queues `template` for `recipient`, written in `language` (the default when `nil`), and starts delivering it. Past the hourly limit per recipient the
    /// message is dropped (and logged, without the address): flows go on the same way, so someone starting
    /// flows in a loop cannot flood an inbox or a phone, nor learn anything from it.
    package func send(
        _ template: MessageTemplate, code: String = "", link: String = "", to recipient: String, on channel: MessageChannel, service: String,
        codeLifetime: Int64, language: Language? = nil
    ) async throws {
        let text = template.render(
            code: code, link: link, minutes: max(1, codeLifetime / 60), service: service, on: channel, in: catalog.wording(language ?? defaultLanguage))
        let limit = template.isSecurityNotice ? configuration.securityNoticeHourlyLimit : configuration.recipientHourlyLimit
        guard
            let id = try await queue.enqueue(
                channel: channel, recipient: recipient, template: template, subject: text.subject, body: text.body,
                hourlyLimit: limit)
        else {
            logger.notice(
                "Dropped a message: its recipient reached the hourly limit",
                metadata: ["channel": "\(channel.rawValue)", "template": "\(template.rawValue)", "limit": "\(limit)"])
            return
        }
        logger.info("Queued a message", metadata: ["message": "\(id)", "channel": "\(channel.rawValue)", "template": "\(template.rawValue)"])
        // Queued in a flow submission's transaction, the message exists for the delivery pass only once that commits.
        TransactionScope.afterCommit(of: queue.database) { Task { await CallerPresence.unattended { await self.deliverDue() } } }
    }

    /// Delivers every message that is due. Safe to call at any time from anywhere: a call during a pass
    /// makes that pass look again instead of starting a second one.
    public func deliverDue() async {
        let first = pass.withLockedValue { pass in
            pass.requested = true
            if pass.running { return false }
            pass.running = true
            return true
        }
        guard first else { return }
        // Ending the pass and noticing a new request happen under one lock, so no request is lost in between.
        while pass.withLockedValue({ pass in
            pass.running = pass.requested
            pass.requested = false
            return pass.running
        }) {
            do {
                // Bounded per pass; a long backlog continues on the next pass.
                for message in try await queue.claimDue(limit: 50) { await deliver(message) }
            } catch {
                logger.error("The courier cannot read its queue: \(error)")
            }
        }
    }

    private func deliver(_ message: CourierMessage) async {
        guard let delivery = deliveries[message.channel] else { return }
        let metadata: Logger.Metadata = ["message": "\(message.id)", "channel": "\(message.channel.rawValue)", "attempt": "\(message.attempts)"]
        do {
            try await delivery.deliver(message)
            try await queue.markSent(message.id)
            logger.info("Delivered a message", metadata: metadata)
            GatehouseMetrics.delivery(channel: message.channel.rawValue, delivered: true)
        } catch {
            let failure = error as? DeliveryFailure ?? DeliveryFailure(description: "\(error)")
            let status = try? await queue.markFailed(
                message, error: failure.description, permanent: failure.permanent,
                maxAttempts: configuration.maxAttempts, retryDelay: configuration.retryDelay)
            logger.warning("Delivery failed\(status == .failed ? "; giving up" : "; will retry"): \(failure.description)", metadata: metadata)
            GatehouseMetrics.delivery(channel: message.channel.rawValue, delivered: false)
        }
    }
}
