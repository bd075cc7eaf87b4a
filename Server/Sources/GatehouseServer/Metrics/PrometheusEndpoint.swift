import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle

/// `/metrics` in Prometheus's text format, on a listener of its own (`metrics.host`, `metrics.port`).
public enum PrometheusEndpoint {
    /// Makes Prometheus the process's metrics backend and returns its registry. Once per process (swift-metrics allows
    /// one bootstrap); names from libraries (`http.server.request.duration`) become Prometheus names.
    public static func bootstrap(version: String) -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (prometheusName(name), labels.map { (prometheusName($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        let buildInfo = MetricNameDescriptor(namespace: "gatehouse", metricName: "build", unitName: "info", helpText: "The running Gatehouse version.")
        registry.makeGauge(descriptor: buildInfo, labels: [("version", version)]).set(to: 1.0)
        return registry
    }

    /// The Prometheus name of a swift-metrics label: Hummingbird's request metrics get their Prometheus names, and
    /// anything else outside `[a-zA-Z0-9_:]` becomes `_`.
    static func prometheusName(_ name: String) -> String {
        let renamed =
            switch name {
            case "hb.requests": "http_requests_total"
            case "hb.request.errors": "http_request_errors_total"
            case "http.server.request.duration": "http_server_request_duration_seconds"
            default: name
            }
        return String(renamed.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
    }

    /// What each metric means, for `# HELP` (swift-metrics has no help text of its own).
    static let help: [String: String] = [
        "http_requests_total": "HTTP requests answered, by route, method and status.",
        "http_request_errors_total": "HTTP requests that ended in an error, by route, method and status.",
        "http_server_request_duration_seconds": "How long HTTP requests took, by route, method and status.",
        "http_server_active_requests": "HTTP requests under way, by method.",
        "gatehouse_build_info": "The running Gatehouse version.",
        "gatehouse_audit_events_total": "Audit events recorded, by type.",
        "gatehouse_sign_ins_total": "Sign-ins, by outcome, first factor and the reason of a failure.",
        "gatehouse_lockouts_total": "Accounts or addresses blocked after too many wrong guesses, by factor.",
        "gatehouse_refresh_token_reuse_total": "Refresh tokens presented again; each revoked its token family.",
        "gatehouse_tokens_issued_total": "Token responses issued, by grant type.",
        "gatehouse_password_hash_duration_seconds": "How long a password hash took, waiting for the hashing pool included.",
        "gatehouse_database_transaction_duration_seconds": "How long a database transaction took.",
        "gatehouse_courier_deliveries_total": "Emails, texts and calls delivered or failed, by channel.",
        "gatehouse_swept_rows_total": "Expired rows deleted by the background sweep, by table.",
        "gatehouse_courier_queue_depth": "Messages waiting for delivery: first attempts and retries.",
        "gatehouse_courier_oldest_message_age_seconds": "How long the oldest message waiting for delivery has waited.",
        "gatehouse_database_operations_in_flight": "Database reads and transactions under way, holding or waiting for a connection.",
        "gatehouse_password_hashes_in_flight": "Password hashes running or waiting; above gatehouse_password_hash_threads they queue.",
        "gatehouse_password_hash_threads": "Password hashes that may run at once (max_concurrent_hashes).",
    ]

    /// `text` with a `# HELP` line before each metric's `# TYPE` line that has none.
    static func withHelp(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst(7).prefix { $0 != " " }
                if lines.last?.hasPrefix("# HELP \(name) ") != true {
                    lines.append("# HELP \(name) \(help[String(name)] ?? "Gatehouse metric \(name).")")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The metrics listener, as a service to run beside the server: `registry`'s metrics on `policy`'s address, with
    /// `gauges` set just before each scrape.
    ///
    /// `alsoServing` adds routes beside `/metrics` (the admin console, when it is served here).
    static func application(
        registry: PrometheusCollectorRegistry, policy: MetricsPolicy, gauges: ScrapeGauges, logger: Logger,
        alsoServing: (@Sendable (Router<GatehouseRequestContext>) -> Void)? = nil
    ) -> some Service {
        let router = Router(context: GatehouseRequestContext.self)
        alsoServing?(router)
        router.get("/metrics") { _, _ in
            await gauges.refresh()
            var buffer = [UInt8]()
            buffer.reserveCapacity(16 * 1024)
            registry.emit(into: &buffer)
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: withHelp(String(decoding: buffer, as: UTF8.self)))))
            response.headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        }
        return Application(router: router, configuration: .init(address: .hostname(policy.host, port: policy.port ?? 0)), logger: logger)
    }
}
