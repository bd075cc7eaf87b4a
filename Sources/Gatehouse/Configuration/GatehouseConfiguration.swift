import Foundation

/// What the SDK needs to know about the provider and the app.
public struct GatehouseConfiguration: Sendable {
    /// The provider's issuer, e.g. `https://id.example.com`.
    public var issuer: URL
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    /// Time limit for each request to the provider.
    public var timeout: TimeInterval
    public var transport: any HTTPTransport
    public var tokenStorage: any TokenStorage
    /// Refresh the access token when it expires within this many seconds.
    public var refreshMargin: TimeInterval

    public init(
        issuer: URL, clientID: String, redirectURI: String, scopes: [String] = ["openid", "profile", "email", "offline_access"],
        timeout: TimeInterval = 30, transport: any HTTPTransport = URLSessionTransport(), tokenStorage: any TokenStorage = MemoryTokenStorage(),
        refreshMargin: TimeInterval = 60
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.timeout = timeout
        self.transport = transport
        self.tokenStorage = tokenStorage
        self.refreshMargin = refreshMargin
    }

    /// The account name tokens are stored under: one per issuer and client.
    var storageAccount: String { "\(issuer.absoluteString)#\(clientID)" }
}
