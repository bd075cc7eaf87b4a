import GatehouseFoundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Exports the server's spans to an OpenTelemetry collector by OTLP/HTTP (`tracing.otlp_endpoint`). The tracer reads
/// and writes W3C `traceparent`, so a request in a caller's trace continues it, and the calls Gatehouse makes itself
/// (upstream identity providers, webhooks) carry the trace on.
public enum OpenTelemetryExport {
    /// Makes the OpenTelemetry tracer the process's tracer (once per process; before the server's HTTP clients are
    /// made, so they trace their calls too) and returns the service that exports spans in batches, and the logging
    /// metadata that puts each log line's `trace_id` and `span_id` beside its request id. The standard `OTEL_*`
    /// environment variables (`OTEL_BSP_SCHEDULE_DELAY`, `OTEL_EXPORTER_OTLP_HEADERS`, …) refine the configuration.
    public static func bootstrap(
        _ policy: TracingPolicy, version: String, logger: Logger
    ) throws -> (service: any Service, logMetadata: Logger.MetadataProvider)? {
        guard let url = policy.tracesURL else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = policy.serviceName
        configuration.resourceAttributes = ["service.version": version]
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = url
        configuration.traces.sampler =
            policy.sampleRatio >= 1 ? .parentBasedAlwaysOn : .parentBasedTraceIDRatio(ratio: policy.sampleRatio) ?? .parentBasedAlwaysOn
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        Traces.enable()
        return (backend.service, OTel.makeLoggingMetadataProvider())
    }
}
