import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseServer
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `gatehouse serve`: runs the identity server until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the identity server (SQLite in the current folder, 127.0.0.1:8080 by default)."
    )

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (default 8080; 0 picks a free port).")
    var port: Int?

    @Option(help: "Public base URL of the server (default http://HOST:PORT).")
    var issuer: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Flag(help: "Create a demo user and client and serve a demo application at /demo.")
    var demo = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let given: [ServerSetting: String?] = [.host: host, .port: port.map(String.init), .issuer: issuer, .logLevel: logLevel, .demo: demo ? "true" : nil]
        var configuration = try store.configuration(overrides: given.compactMapValues { $0 })
        if configuration.demo { DemoRelyingParty.applyDefaults(to: &configuration) } else { try configuration.requireChosenDelivery() }
        let level = configuration.logLevel
        // The tracer comes before the server's HTTP clients are made, so their calls carry the trace on.
        let tracing = try OpenTelemetryExport.bootstrap(
            configuration.tracing, version: GatehouseCommand.version, logger: Self.logger(level: level, metadata: AuditContext.requestMetadata))
        // Every line logged while a request is handled names its request id (the one in X-Request-Id and the audit
        // trail) and, when tracing, its trace and span.
        let metadata = tracing.map { Logger.MetadataProvider.multiplex([AuditContext.requestMetadata, $0.logMetadata]) } ?? AuditContext.requestMetadata
        LoggingSystem.bootstrap({ label, provider in Self.handler(label: label, level: level, metadata: provider) }, metadataProvider: metadata)
        let logger = Logger(label: "gatehouse")
        // The metrics backend comes first, so that everything the server measures from its start is counted.
        let registry = configuration.metrics.port == nil ? nil : PrometheusEndpoint.bootstrap(version: GatehouseCommand.version)
        let server = try await IdentityServer.start(configuration: configuration, logger: logger)
        let demoParty = configuration.demo ? try await server.demoRelyingParty() : nil
        let issuer = server.issuer
        let application = try GatehouseApplication.make(server: server, demo: demoParty, logger: logger) { port in
            demoParty?.serverIsRunning(onPort: port)
            var banner = "Gatehouse is running: \(issuer) (listening on port \(port))\n"
            banner += "  Discovery: \(issuer)/.well-known/openid-configuration\n"
            if let demoParty {
                banner += "  Demo:      \(issuer)/demo\n"
                banner += "  Sign in as \(DemoRelyingParty.username) with the password \(demoParty.password)\n"
            }
            banner += "Press Ctrl-C to stop.\n"
            // Written straight to the file descriptor: when stdout is a pipe, print() would sit in a buffer.
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
        // Prometheus metrics on their own listener, when a port is configured (never on the public one), and the audit
        // trail's webhook, when one is.
        var sideServices: [any Service] = []
        if let registry {
            sideServices.append(server.metricsService(registry: registry, logger: logger))
            FileHandle.standardOutput.write(Data("  Metrics:   http://\(configuration.metrics.host):\(configuration.metrics.port ?? 0)/metrics\n".utf8))
        }
        if let events = server.eventDeliveryService() { sideServices.append(events) }
        if let tracing { sideServices.append(tracing.service) }
        if configuration.keys.rotateEvery != nil { sideServices.append(server.keyRotationService()) }
        // Last, so the first to hear of a shutdown: open streams end before the server waits for its responses.
        sideServices.append(ShutdownHook { server.endOpenStreams() })
        do {
            // The HTTP server and the courier's retries run side by side and stop together on SIGINT or SIGTERM.
            let services = ServiceGroup(
                configuration: .init(
                    services: [
                        .init(service: application), .init(service: CourierService(courier: server.courier)),
                        .init(service: server.housekeepingService()), .init(service: server.backChannelLogoutService()),
                    ] + sideServices.map { .init(service: $0) },
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
                ))
            try await services.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            await server.shutdown()
            throw CommandError("Port \(configuration.port) on \(configuration.host) is already in use; stop the other process or choose another --port.")
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        logger.info("Gatehouse stopped")
    }

    /// Log lines on standard error from `level` up.
    private static func handler(label: String, level: Logger.Level, metadata: Logger.MetadataProvider?) -> any LogHandler {
        var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadata)
        handler.logLevel = level
        return handler
    }

    /// A logger for what happens before the logging system is bootstrapped (the tracer's own warnings).
    private static func logger(level: Logger.Level, metadata: Logger.MetadataProvider) -> Logger {
        Logger(label: "gatehouse.tracing") { handler(label: $0, level: level, metadata: metadata) }
    }
}
