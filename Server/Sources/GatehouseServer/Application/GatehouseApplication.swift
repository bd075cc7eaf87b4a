import GatehouseDomain
import GatehouseFoundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Builds the HTTP application: every route of the identity server, the hosted pages and, with `--demo`, the demo.
public enum GatehouseApplication {
    /// The request context all routes use.
    public typealias Context = GatehouseRequestContext

    /// The router with every Gatehouse route.
    public static func makeRouter(server: IdentityServer, demo: DemoRelyingParty? = nil) -> Router<Context> {
        let router = Router(context: Context.self)
        addCommonParts(to: router, server: server)
        router.get("/") { _, _ in Redirect.to(demo == nil ? "/.well-known/openid-configuration" : "/demo") }
        HealthController(
            database: server.database, keys: server.keys,
            probe: WriteProbe(database: server.database, location: server.configuration.database, clock: server.clock), logger: server.logger
        ).addRoutes(to: router)
        // Pages a browser sees answer their own errors as pages.
        server.authorizationController.addRoutes(to: router)
        server.loginController.addRoutes(to: router)
        server.federationController.addRoutes(to: router)
        server.adminController.addRoutes(to: router)
        server.endSessionController.addRoutes(to: router)
        server.deviceConfirmationPage.addRoutes(to: router)
        server.deviceVerificationPage.addRoutes(to: router)
        server.accountPage.addRoutes(to: router)
        if server.configuration.adminConsole.enabled, server.configuration.adminConsole.listener == .public { server.adminConsole.addRoutes(to: router) }
        // The JSON API: every failure is an RFC 6749 error, rendered in one place.
        let api = router.group().add(middleware: OAuthErrorMiddleware(logger: server.logger))
        DiscoveryController(
            issuer: server.issuer, keys: server.keys, registration: server.configuration.dynamicRegistration.enabled,
            metadataDocuments: server.configuration.clientMetadataDocuments.enabled,
            requirePushed: server.configuration.requirePushedAuthorizationRequests || server.configuration.fapi2,
            requireSigned: server.configuration.requireSignedRequestObject, profile: server.configuration.profile,
            keySetMaxAge: server.configuration.keys.keySetMaxAge
        ).addRoutes(to: api)
        if server.configuration.dynamicRegistration.enabled { server.clientRegistrationController.addRoutes(to: api) }
        server.tokenController.addRoutes(to: api)
        server.deviceAuthorizationController.addRoutes(to: api)
        server.pushedAuthorizationController.addRoutes(to: api)
        server.userinfoController.addRoutes(to: api)
        RevocationController(authenticator: server.clientAuthenticator, tokens: server.tokens).addRoutes(to: api)
        IntrospectionController(
            issuer: server.issuer, authenticator: server.clientAuthenticator, resources: server.resources, tokens: server.tokens, users: server.users
        ).addRoutes(to: api)
        server.flowController.addRoutes(to: api)
        server.accountAPIController.addRoutes(to: api)
        server.authenticatorController.addRoutes(to: api)
        FlowAPIDocument.addRoutes(to: api, issuer: server.issuer)
        demo?.addRoutes(to: router)
        return router
    }

    /// What every listener that serves pages has: tracing, security headers, request ids and metrics around each
    /// request, and the pages' stylesheet and scripts from its own origin.
    static func addCommonParts(to router: Router<Context>, server: IdentityServer) {
        // A span per request when tracing is on, around everything else, so the request's whole work is in it.
        if server.configuration.tracing.otlpEndpoint != nil { router.add(middleware: RequestTracingMiddleware(proxies: server.configuration.trustedProxies)) }
        router.add(
            middleware: SecurityHeadersMiddleware(
                https: server.configuration.issuerIsHTTPS,
                styleOrigin: server.configuration.branding.stylesheetURL.flatMap(BrandingPolicy.origin(of:))))
        router.add(middleware: RequestIDMiddleware(proxies: server.configuration.trustedProxies))
        router.add(middleware: MethodNotAllowedMiddleware())
        router.add(middleware: CallerPresenceMiddleware())
        // HTTP requests by route and status, with their durations, when metrics are on (nothing per request otherwise).
        if server.configuration.metrics.port != nil { router.add(middleware: HTTPMetricsMiddleware()) }
        // Served from our own origin, so the CSP can forbid inline styles and scripts.
        for (name, contentType, text) in [
            ("assets/gatehouse.css", "text/css; charset=utf-8", PackageResources.contents("assets/gatehouse.css")),
            ("assets/app-login.js", "text/javascript; charset=utf-8", PackageResources.contents("assets/app-login.js")),
            ("assets/passkey.js", "text/javascript; charset=utf-8", PackageResources.contents("assets/passkey.js")),
            ("assets/brand.css", "text/css; charset=utf-8", server.configuration.brandStylesheet),
        ] {
            let body = ByteBuffer(string: text)
            let path = "/" + name
            router.get(RouterPath(path)) { _, _ in
                var headers = HTTPFields()
                headers[.contentType] = contentType
                headers[.cacheControl] = "public, max-age=3600"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
            }
        }
    }

    /// The admin console with the hosted sign-in it sends people to, for the metrics listener
    /// (`admin_console.listener: metrics`); `nil` when the console is off or on the public listener.
    static func makeConsoleRoutes(server: IdentityServer) -> (@Sendable (Router<Context>) -> Void)? {
        let policy = server.configuration.adminConsole
        guard policy.enabled, policy.listener == .metrics else { return nil }
        return { router in
            addCommonParts(to: router, server: server)
            server.loginController.addRoutes(to: router)
            server.adminConsole.addRoutes(to: router)
        }
    }

    /// The application, bound to the configured host and port, holding at most as many connections as the
    /// open-file limit allows (raised to the hard limit first) and closing connections that are slow to send.
    /// - Parameter onServerRunning: called with the bound port once the server accepts connections.
    /// - Throws: ``ConfigurationError`` when `connections.max_connections` does not fit under the open-file limit.
    public static func make(
        server: IdentityServer, demo: DemoRelyingParty? = nil, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let configuration = server.configuration
        let openFiles = OpenFileLimit.raise()
        let gauge = ConnectionGauge(limit: try configuration.connections.connectionLimit(openFiles: openFiles), logger: logger)
        let policy = configuration.connections
        logger.info("Accepting up to \(gauge.limit) connections", metadata: ["open_file_limit": "\(openFiles)"])
        if !configuration.trustedProxies.addresses.isEmpty {
            let proxies = configuration.trustedProxies
            logger.info(
                "Counting requests from trusted proxies by the client they name",
                metadata: ["proxies": "\(proxies.addresses.map(\.description).joined(separator: " "))", "header": "\(proxies.header.rawValue)"])
        }
        return Application(
            router: makeRouter(server: server, demo: demo),
            // An autoclosure: every connection gets a handler of its own.
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionDeadlineHandler(policy: policy, gauge: gauge)])),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Gatehouse",
                availableConnectionsDelegate: gauge.admission),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }
}
