import AsyncHTTPClient
import Crypto
import Foundation
import GatehouseDomain
import GatehouseFoundation
import NIOCore

/// The audit trail sent to `audit.webhook`: the whole trail from its oldest kept event, in batches of JSON lines, each
/// batch signed twice (``signature(body:timestamp:secret:)`` and Standard Webhooks) and accepted or refused as a whole.
/// The receiver drops an event it saw by its `id`.
struct AuditWebhookChannel: EventChannel {
    let webhook: AuditWebhook

    var name: String { "audit" }
    var types: [AuditEventType]? { nil }
    var batchSize: Int { webhook.batchSize }
    var startsAtNewest: Bool { false }

    func deliver(_ events: [AuditEvent], at now: Int64) async -> Int {
        await post(events, at: now) ? events.count : 0
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
