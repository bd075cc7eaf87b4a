import AsyncHTTPClient
import Crypto
import Foundation
import GatehouseDomain
import GatehouseFoundation
import Logging
import NIOCore
import SQLKit
import ServiceLifecycle

/// Sends the audit trail to `audit.webhook` beside the HTTP server: every second, the events after the last delivered
/// one, as JSON lines, signed; a refused or failed POST waits (10 s, doubling, at most an hour) and is sent again.
/// Delivery is in order and at least once: the receiver drops an event it saw by its `id`.
public struct AuditWebhookService: Service {
    let database: any Database
    let audit: AuditLog
    let clock: UnixClock
    let logger: Logger
    let webhook: AuditWebhook
    let interval: Duration

    /// A service that sends `audit`'s events to `webhook`, keeping its progress in `database`.
    public init(database: any Database, audit: AuditLog, clock: UnixClock, logger: Logger, webhook: AuditWebhook, interval: Duration = .seconds(1)) {
        self.database = database
        self.audit = audit
        self.clock = clock
        self.logger = logger
        self.webhook = webhook
        self.interval = interval
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await deliverDue()
                } catch {
                    logger.warning("Audit webhook delivery failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    /// Sends the next batch when one is waiting and no retry delay is running.
    func deliverDue() async throws {
        let now = clock.now()
        let state = try await database.read { sql in
            try await sql.raw("SELECT last_event_id, failures, next_attempt_at FROM audit_delivery WHERE id = 1").first()
        }
        let last = try state?.decode(column: "last_event_id", as: String?.self)
        let failures = try state?.decode(column: "failures", as: Int.self) ?? 0
        guard try (state?.decode(column: "next_attempt_at", as: Int64.self) ?? 0) <= now else { return }
        let events = try await audit.events(AuditLog.Filter(after: last), limit: webhook.batchSize)
        guard let newest = events.last else { return }
        let delivered = await post(events, at: now)
        let delay = delivered ? 0 : min(Int64(10) << min(failures, 12), 3600)
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM audit_delivery WHERE id = 1").run()
            try await sql.raw(
                """
                INSERT INTO audit_delivery (id, last_event_id, failures, next_attempt_at)
                VALUES (1, \(bind: delivered ? newest.id : last), \(bind: delivered ? 0 : failures + 1), \(bind: now + delay))
                """
            ).run()
        }
    }

    /// POSTs `events` as JSON lines; whether the receiver accepted them (2xx).
    private func post(_ events: [AuditEvent], at now: Int64) async -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = events.compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "\n"
        var request = HTTPClientRequest(url: webhook.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-ndjson")
        request.headers.add(name: "User-Agent", value: "Gatehouse audit")
        request.headers.add(name: "X-Gatehouse-Signature", value: Self.signature(body: body, timestamp: now, secret: webhook.secret))
        // The same batch signed as Standard Webhooks has it, for receivers that check with its libraries; its id is the
        // batch's first and last events', the same on a retry of the same batch.
        let id = "audit_\(events.first?.id ?? "")_\(events.last?.id ?? "")"
        for header in StandardWebhookSignature(secret: webhook.secret).headers(id: id, timestamp: now, body: Data(body.utf8)) {
            request.headers.add(name: header.name, value: header.value)
        }
        request.body = .bytes(ByteBuffer(string: body))
        do {
            let response = try await OutboundHTTP.execute(request, timeout: .seconds(Int64(webhook.timeout)))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (200..<300).contains(Int(response.status.code))
        } catch {
            return false
        }
    }

    /// `t=TIMESTAMP,sha256=HEX`: HMAC-SHA256 under `secret` of `TIMESTAMP.BODY`, so a captured request cannot be replayed
    /// as a later one without the receiver noticing its age.
    static func signature(body: String, timestamp: Int64, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
