import GatehouseDomain
import HTTPTypes
import Hummingbird
import Instrumentation
import Tracing

/// A server span per request, continuing the caller's trace when it sends W3C `traceparent`. It records the route's
/// template (`/flows/{id}`), never the path or query: those carry codes, states and flow handles, which must not leave
/// the server in spans. Added only when tracing is on.
struct RequestTracingMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var caller = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &caller, using: HTTPFieldsExtractor())
        let span = startSpan("HTTP \(request.method.rawValue)", context: caller, ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["client.address"] = ClientAddress(of: request, context: context, trusting: proxies).text
        span.attributes["user_agent.original"] = request.headers[.userAgent].map { String($0.prefix(256)) }
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) { try await next(request, context) }
            finish(span, request.method, route: context.endpointPath, status: Int(response.status.code), requestID: response.headers[.xRequestID])
            // Ends with the response's making: a streamed page's span does not cover the stream.
            span.end()
            return response
        } catch {
            let status = Int((error as? any HTTPResponseError)?.status.code ?? 500)
            finish(span, request.method, route: context.endpointPath, status: status, requestID: nil)
            if status >= 500 { span.recordError(error) }
            span.end()
            throw error
        }
    }

    private func finish(_ span: any Span, _ method: HTTPRequest.Method, route: String?, status: Int, requestID: String?) {
        if let route {
            // Hummingbird's `:parameter` as OpenTelemetry's `{parameter}`.
            let template = route.split(separator: "/", omittingEmptySubsequences: false).map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                .joined(separator: "/")
            span.operationName = "\(method.rawValue) \(template)"
            span.attributes["http.route"] = template
        }
        span.attributes["http.response.status_code"] = status
        span.attributes["gatehouse.request_id"] = requestID
        if status >= 500 { span.setStatus(.init(code: .error)) }
    }
}

/// Reads trace context headers (`traceparent`, `tracestate`) from a request.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
