import AsyncHTTPClient
import Foundation
import GatehouseFoundation
import Instrumentation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tracing

/// Requests this server makes to others: identity providers, the courier's and the audit trail's webhooks.
///
/// One client for all of them, whose client spans name the URL without its query or credentials: an operator's
/// webhook URL may carry a token there, and AsyncHTTPClient's own spans would export it to the trace collector
/// (`url.full`, `url.query`). Failures are described in plain words (``describe(_:)``).
package enum OutboundHTTP {
    /// AsyncHTTPClient's shared configuration with its own spans off: ``execute(_:timeout:)`` makes them.
    package static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends `request` and reads at most `limit` bytes of the answer's body, the head and the body within one
    /// `timeout`: a server that trickles its body (a byte a second resets any read timeout) is cut off like one that
    /// never answers. Throws ``HTTPClientError/deadlineExceeded`` past the deadline, `NIOTooManyBytesError` past `limit`.
    package static func fetch(
        _ request: HTTPClientRequest, timeout: TimeAmount, upTo limit: Int, on client: HTTPClient = client
    ) async throws -> (response: HTTPClientResponse, body: ByteBuffer) {
        // AsyncHTTPClient retries a refused connection until its own deadline and then throws why; that deadline
        // comes a little before the whole fetch's, so the reason (refused, unresolvable) wins over "not in time".
        let headTimeout = timeout - min(.nanoseconds(timeout.nanoseconds / 10), .milliseconds(200))
        return try await withThrowingTaskGroup(of: (response: HTTPClientResponse, body: ByteBuffer)?.self) { group in
            group.addTask {
                let response = try await execute(request, timeout: headTimeout, on: client)
                return (response, try await response.body.collect(upTo: limit))
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, timeout.nanoseconds)))
                return nil
            }
            // The first to finish decides; the other is cancelled (a body still streaming cancels its request).
            defer { group.cancelAll() }
            guard case .some(.some(let answer)) = try await group.next() else { throw HTTPClientError.deadlineExceeded }
            return answer
        }
    }

    /// Sends `request`, inside a client span of the caller's trace when tracing is on; the span's context goes along
    /// in `traceparent`, so the receiver can continue the trace.
    package static func execute(_ request: HTTPClientRequest, timeout: TimeAmount, on client: HTTPClient = client) async throws -> HTTPClientResponse {
        guard Traces.isEnabled else { return try await client.execute(request, timeout: timeout) }
        return try await withSpan(request.method.rawValue, ofKind: .client) { span in
            var request = request
            span.attributes["http.request.method"] = request.method.rawValue
            if let url = URLComponents(string: request.url) {
                span.attributes["url.scheme"] = url.scheme
                span.attributes["server.address"] = url.host
                span.attributes["server.port"] = url.port
                span.attributes["url.path"] = url.path
                span.attributes["url.full"] = printable(request.url)
            }
            InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HeadersInjector())
            let response = try await client.execute(request, timeout: timeout)
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 400 { span.setStatus(.init(code: .error)) }
            return response
        }
    }

    /// `url` as logs, spans and messages may show it: without credentials, query or fragment.
    package static func printable(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(an unreadable URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(an unreadable URL)"
    }

    /// What went wrong with a request, in words an operator acts on: "the connection was refused (nothing listens
    /// on host:443)" rather than a transport error's own text.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError:
            if [.connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout].contains(error) {
                return "it did not answer in time"
            }
            if error == .remoteConnectionClosed { return "it closed the connection without answering" }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) { return "its URL is not one that can be requested" }
            return "the request failed (\(error))"
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name \(error.host) could not be resolved" }
            if error.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
                return "the connection was refused (nothing listens on \(error.host):\(error.port))"
            }
            return "no connection could be made to \(error.host):\(error.port)"
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return "the connection was refused (nothing listens there)"
            case ECONNRESET: return "the connection was reset"
            case ETIMEDOUT: return "it did not answer in time"
            case ENETUNREACH, EHOSTUNREACH: return "the network or host is unreachable"
            default: return "the connection failed (\(String(cString: strerror(error.errnoCode))))"
            }
        case is NIOSSLError:
            return "the TLS handshake failed (check the server's certificate)"
        default:
            return "the request failed (\(error))"
        }
    }
}

/// Writes trace context headers (`traceparent`, `tracestate`) into an outgoing request.
private struct HeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}
