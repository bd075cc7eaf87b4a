/// The body of a health answer: `{"status":"ok"}` or `{"status":"unavailable"}`.
struct HealthStatus: Encodable, Sendable {
    let status: String

    static let ok = HealthStatus(status: "ok")
    static let unavailable = HealthStatus(status: "unavailable")
}
