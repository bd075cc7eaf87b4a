import Metrics

/// The server's own metrics, through swift-metrics (Prometheus when `metrics.port` is set, nothing otherwise). Sign-ins,
/// lock-outs and token reuse are counted from the audit trail's events as they commit, so the numbers and the trail
/// never disagree.
package enum GatehouseMetrics {
    /// Counts a committed audit event: every type, and sign-ins, lock-outs and refresh-token reuse by name.
    package static func record(_ event: AuditEvent) {
        Counter(label: "gatehouse_audit_events_total", dimensions: [("type", event.type.rawValue)]).increment()
        switch event.type {
        case .signInSucceeded:
            let factor = event.details["methods"]?.split(separator: " ").first.map(String.init) ?? "unknown"
            Counter(label: "gatehouse_sign_ins_total", dimensions: [("outcome", "succeeded"), ("factor", factor), ("reason", "")]).increment()
        case .signInFailed:
            Counter(
                label: "gatehouse_sign_ins_total",
                dimensions: [("outcome", "failed"), ("factor", event.details["factor"] ?? "unknown"), ("reason", event.details["reason"] ?? "")]
            ).increment()
        case .accountLockedOut:
            Counter(label: "gatehouse_lockouts_total", dimensions: [("factor", event.details["factor"] ?? "unknown")]).increment()
        case .refreshTokenReused:
            Counter(label: "gatehouse_refresh_token_reuse_total").increment()
        default:
            break
        }
    }

    /// Counts the tokens a successful token response of `grant` issued.
    package static func countIssued(_ grant: String) {
        tokensIssued[grant]?.increment()
    }

    // The hot paths' handles, made at first use: a lookup in the backend's registry per request would cost more than
    // the work measured. The metrics backend is bootstrapped before the server starts, so none is made before it.
    private static let tokensIssued = Dictionary(
        uniqueKeysWithValues: ["authorization_code", "refresh_token", "client_credentials"].map {
            ($0, Counter(label: "gatehouse_tokens_issued_total", dimensions: [("grant", $0)]))
        })

    /// Messages the courier delivered or failed to.
    package static func delivery(channel: String, delivered: Bool) {
        Counter(label: "gatehouse_courier_deliveries_total", dimensions: [("channel", channel), ("outcome", delivered ? "delivered" : "failed")])
            .increment()
    }
}
