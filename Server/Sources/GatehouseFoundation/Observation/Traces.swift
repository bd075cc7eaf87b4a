import Synchronization
import Tracing

/// Spans around the server's own work (database transactions and reads, password hashes), under the request's span.
/// Until a tracer is bootstrapped (``OpenTelemetryExport``) they cost one relaxed load: nothing is allocated.
package enum Traces {
    private static let enabled = Atomic<Bool>(false)

    /// Whether spans are recorded in this process.
    package static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Called once the process's tracer is bootstrapped.
    package static func enable() { enabled.store(true, ordering: .relaxed) }

    /// Runs `body` inside a span named `name` when tracing is on; a thrown error is recorded on the span.
    package static func span<T: Sendable>(
        _ name: String, kind: SpanKind = .internal, attributes: SpanAttributes = [:], _ body: () async throws -> T
    ) async throws -> T {
        guard isEnabled else { return try await body() }
        return try await withSpan(name, ofKind: kind) { span in
            span.attributes.merge(attributes)
            return try await body()
        }
    }
}
