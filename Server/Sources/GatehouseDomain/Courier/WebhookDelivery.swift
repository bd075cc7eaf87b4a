import AsyncHTTPClient
import Foundation
import NIOCore

/// POSTs each message as JSON to an HTTP endpoint: an SMS gateway or a mail API behind a small adapter.
/// A 2xx answer is a delivery; 408, 429 and 5xx are retried; other 4xx fail for good.
package struct WebhookDelivery: MessageDelivery {
    package let settings: WebhookSettings
    package let sender: String

    /// The JSON body: everything a gateway needs, with a stable id it can use to drop duplicates of a retry.
    package struct Payload: Codable, Equatable {
        package var id: String
        package var channel: String
        package var to: String
        package var from: String
        package var template: String
        package var subject: String
        package var body: String
    }

    package func deliver(_ message: CourierMessage) async throws {
        var request = HTTPClientRequest(url: settings.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Gatehouse courier")
        if let authorization = settings.authorization { request.headers.add(name: "Authorization", value: authorization) }
        let payload = Payload(
            id: message.id, channel: message.channel.rawValue, to: message.recipient, from: sender,
            template: message.template, subject: message.subject, body: message.body)
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(payload)))
        let response: HTTPClientResponse
        do {
            response = try await OutboundHTTP.execute(request, timeout: .seconds(settings.timeout))
        } catch {
            throw DeliveryFailure(description: "The webhook \(OutboundHTTP.printable(settings.url)) could not be reached: \(OutboundHTTP.describe(error)).")
        }
        // Read (and drop) a bounded body so the connection can be reused.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let retryable = status == 408 || status == 429 || status >= 500
            throw DeliveryFailure(description: "The webhook answered HTTP \(status).", permanent: !retryable)
        }
    }
}
