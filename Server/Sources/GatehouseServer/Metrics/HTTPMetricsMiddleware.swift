import Dispatch
import HTTPTypes
import Hummingbird
import Metrics
import NIOConcurrencyHelpers

/// HTTP requests by route template, method and status, with their durations, and the requests under way by method,
/// under Hummingbird's metric names (`http_requests_total`, `http_server_request_duration_seconds`,
/// `http_server_active_requests`). Hummingbird's own middleware cost a quarter of the cheapest route's throughput in
/// the load benchmark, mostly by wrapping every response body to measure after it is written; this one measures when
/// the response is made (a streamed page's duration is its setup), with the handles made once per route, method and
/// status.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        let active = HTTPMetricHandles.active(request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            HTTPMetricHandles.endpoint(context.endpointPath ?? "NotFound", request.method, response.status.code)
                .finished(after: DispatchTime.now().uptimeNanoseconds - started, failed: false)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            HTTPMetricHandles.endpoint(context.endpointPath ?? "NotFound", request.method, status)
                .finished(after: DispatchTime.now().uptimeNanoseconds - started, failed: true)
            throw error
        }
    }
}

/// The metric handles of each route, method and status, made once.
enum HTTPMetricHandles {
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter

        init(route: String, method: String, status: Int) {
            let dimensions = [("http.route", route), ("http.request.method", method), ("http.response.status_code", String(status))]
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            errors = Counter(label: "hb.request.errors", dimensions: [dimensions[0], dimensions[1], ("error.type", String(status))])
        }

        func finished(after nanoseconds: UInt64, failed: Bool) {
            requests.increment()
            duration.recordNanoseconds(Int64(nanoseconds))
            if failed { errors.increment() }
        }
    }

    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private static let endpoints = NIOLockedValueBox<[Key: Endpoint]>([:])
    private static let methods = NIOLockedValueBox<[HTTPRequest.Method: Meter]>([:])

    static func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: Int) -> Endpoint {
        let key = Key(route: route, method: method, status: status)
        return endpoints.withLockedValue { handles in
            if let found = handles[key] { return found }
            let made = Endpoint(route: route, method: method.rawValue, status: status)
            handles[key] = made
            return made
        }
    }

    static func active(_ method: HTTPRequest.Method) -> Meter {
        methods.withLockedValue { meters in
            if let found = meters[method] { return found }
            let made = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = made
            return made
        }
    }
}
