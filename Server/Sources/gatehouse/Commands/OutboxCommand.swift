import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse outbox`: the messages the courier queued, newest first — with the development outbox, the
/// only place codes go (besides the log).
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Show the emails and text messages the server sent or is sending (newest first)."
    )

    @Option(help: "Only messages to this email address or phone number.")
    var to: String?
    @Option(help: "How many messages to show.")
    var limit = 10
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    /// A message as printed; through the admin API without its subject and body.
    struct Entry: Encodable {
        var id: String
        var channel: String
        var to: String
        var template: String
        var subject: String?
        var body: String?
        var status: String
        var attempts: Int
        var lastError: String?
        var createdAt: Int64
        var sentAt: Int64?

        init(_ outboxMessage: OutboxMessage) {
            let message = outboxMessage.message
            subject = outboxMessage.subject
            body = outboxMessage.body
            id = message.id
            channel = message.channel
            to = message.recipient
            template = message.template
            status = message.status
            attempts = message.attempts
            lastError = message.lastError
            createdAt = message.createdAt
            sentAt = message.sentAt
        }

        enum CodingKeys: String, CodingKey {
            case id, channel, to, template, subject, body, status, attempts
            case lastError = "last_error"
            case createdAt = "created_at"
            case sentAt = "sent_at"
        }
    }

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000.") }
    }

    func run() async throws {
        let messages = try await store.withOperations { try await $0.outbox(to: to, limit: limit) }
        if output.json { return try JSONOutput.print(messages.map(Entry.init)) }
        guard !messages.isEmpty else { return print(to.map { "No messages to \($0)." } ?? "The outbox is empty.") }
        guard messages.allSatisfy({ $0.body != nil }) else { return printWithoutBodies(messages.map(\.message)) }
        let time = ISO8601DateFormatter()
        for entry in messages {
            let message = entry.message
            print(
                "\(time.string(from: Date(timeIntervalSince1970: TimeInterval(message.createdAt))))  \(message.channel) to \(message.recipient)  [\(message.status), \(message.attempts) attempt\(message.attempts == 1 ? "" : "s")]"
            )
            if let error = message.lastError { print("  last error: \(error)") }
            if message.channel == MessageChannel.email.rawValue { print("  Subject: \(entry.subject ?? "")") }
            print("  \(entry.body ?? "")\n")
        }
    }

    /// Where, what and how each message went, as the admin API tells it: it never sends bodies (they hold codes).
    private func printWithoutBodies(_ messages: [AdminMessage]) {
        var table = TextTable(headers: ["CREATED", "CHANNEL", "TO", "TEMPLATE", "STATUS", "ATTEMPTS", "LAST ERROR"])
        table.rows = messages.map {
            [Timestamp.format($0.createdAt), $0.channel, $0.recipient, $0.template, $0.status, "\($0.attempts)", $0.lastError ?? ""]
        }
        print(table.render())
        print("(Message bodies hold codes and are shown only on the server's machine.)")
    }
}
