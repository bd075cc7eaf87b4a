import AsyncHTTPClient
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import Logging
import Metrics
import NIOCore

/// Asks a hook: POSTs a JSON request signed as Standard Webhooks has it, waits at most the hook's timeout, and takes its
/// answer only when it is a JSON object of at most 64 KiB with a 2xx status. Every call is counted
/// (`gatehouse_hook_calls_total` by hook, point and outcome), timed, and traced as a client span.
package struct HookCaller: Sendable {
    /// The largest answer read.
    package static let maximumAnswer = 64 * 1024

    package let clock: UnixClock
    package let logger: Logger

    package init(clock: UnixClock, logger: Logger) {
        self.clock = clock
        self.logger = logger
    }

    /// Why a hook's answer was not taken, in words for the operator's log.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Sends `request` (a JSON object) to `target` at `point` and reads its answer with `read`; what `read`
    /// made of it, or why there is nothing (`read` throws a ``Failure`` for an answer of another shape).
    /// - Parameter id: The message's `webhook-id`: the same on every attempt to send the same thing (an event's id), so
    ///   the receiver can drop what it already has; a fresh one for each question when `nil`.
    package func call<Answer: Sendable>(
        _ target: HookTarget, at point: HookTarget.Point, request: some Encodable, id: String? = nil, read: (Data) throws -> Answer
    ) async -> Result<Answer, Failure> {
        let started = DispatchTime.now().uptimeNanoseconds
        let result = await send(target, request: request, id: id ?? "hook_" + Base64URL.encode(SecureRandom.bytes(16))).flatMap { answer in
            Result { try read(answer) }.mapError { $0 as? Failure ?? Failure(description: "its answer could not be read: \($0)") }
        }
        let outcome = if case .success = result { "answered" } else { "failed" }
        Counter(label: "gatehouse_hook_calls_total", dimensions: [("hook", target.id), ("point", point.rawValue), ("outcome", outcome)]).increment()
        Timer(label: "gatehouse_hook_duration_seconds", dimensions: [("hook", target.id), ("point", point.rawValue)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        if case .failure(let failure) = result {
            logger.warning("A hook did not answer usably", metadata: ["hook": "\(target.id)", "point": "\(point.rawValue)", "reason": "\(failure)"])
        }
        return result
    }

    private func send(_ target: HookTarget, request: some Encodable, id: String) async -> Result<Data, Failure> {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(request) else { return .failure(Failure(description: "its request could not be encoded")) }
        var outbound = HTTPClientRequest(url: target.url)
        outbound.method = .POST
        outbound.headers.add(name: "Content-Type", value: "application/json")
        outbound.headers.add(name: "User-Agent", value: "Gatehouse hooks")
        for header in StandardWebhookSignature(secret: target.secret).headers(id: id, timestamp: clock.now(), body: body) {
            outbound.headers.add(name: header.name, value: header.value)
        }
        outbound.body = .bytes(ByteBuffer(bytes: body))
        let deadline = TimeAmount.seconds(target.timeout)
        do {
            let (response, answer) = try await OutboundHTTP.fetch(outbound, timeout: deadline, upTo: Self.maximumAnswer + 1)
            guard (200..<300).contains(Int(response.status.code)) else {
                return .failure(Failure(description: "it answered HTTP \(response.status.code)"))
            }
            guard answer.readableBytes <= Self.maximumAnswer else { return .failure(Failure(description: "its answer is over 64 KiB")) }
            // Its shape is the point's to read (``HookAnswer``).
            return .success(Data(answer.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .failure(Failure(description: "it did not answer within \(target.timeout) s"))
        } catch is NIOTooManyBytesError {
            return .failure(Failure(description: "its answer is over 64 KiB"))
        } catch {
            return .failure(Failure(description: "it could not be reached: \(OutboundHTTP.describe(error))"))
        }
    }
}
