import Foundation
import Logging

/// What the SDK needs to know about the provider and the app.
public struct GatehouseConfiguration: Sendable {
    /// The provider's issuer, e.g. `https://id.example.com`; ID tokens must name exactly this issuer.
    public var issuer: URL
    /// Where the provider's metadata is read; by default `issuer` + `/.well-known/openid-configuration`.
    public var discoveryURL: URL
    public var clientID: String
    /// The redirect URI registered for the app; native flows send it as the authorization request would.
    public var redirectURI: String
    public var scopes: [String]
    /// Time limit for each request to the provider, in seconds.
    public var timeout: TimeInterval
    public var transport: any HTTPTransport
    public var tokenStorage: any TokenStorage
    /// Refresh the access token when it expires within this many seconds.
    public var refreshMargin: TimeInterval
    /// Where the SDK reports what it does. It never logs passwords, codes or tokens.
    public var logger: Logger

    public init(
        issuer: URL, discoveryURL: URL? = nil, clientID: String, redirectURI: String,
        scopes: [String] = ["openid", "profile", "email", "offline_access"], timeout: TimeInterval = 30,
        transport: any HTTPTransport = URLSessionTransport(), tokenStorage: any TokenStorage = MemoryTokenStorage(),
        refreshMargin: TimeInterval = 60, logger: Logger = Logger(label: "gatehouse")
    ) {
        self.issuer = issuer
        self.discoveryURL = discoveryURL ?? ProviderDiscovery.documentURL(for: issuer)
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.timeout = timeout
        self.transport = transport
        self.tokenStorage = tokenStorage
        self.refreshMargin = refreshMargin
        self.logger = logger
    }

    /// The account name tokens are stored under: one per issuer and client.
    var storageAccount: String { "\(issuer.absoluteString)#\(clientID)" }
}
