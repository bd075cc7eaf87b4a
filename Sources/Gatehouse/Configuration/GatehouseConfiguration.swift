import Foundation
import Logging

/// What the SDK needs to know about the provider and the app.
public struct GatehouseConfiguration: Sendable {
    /// The provider's issuer, e.g. `https://id.example.com`; ID tokens must name exactly this issuer.
    public var issuer: URL
    /// Where the provider's metadata is read; by default `issuer` + `/.well-known/openid-configuration`.
    public var discoveryURL: URL
    /// The app's client id, registered at the provider as a public client.
    public var clientID: String
    /// The redirect URI registered for the app; native flows send it as the authorization request would. For a
    /// ``LoopbackUserAgent``, register `http://127.0.0.1/callback` (any port matches) and give it here.
    public var redirectURI: String
    /// Where the provider sends the browser after ``UserSession/logout(using:)``; `nil` uses ``redirectURI``, which the
    /// client must then have registered as a post-logout redirect URI too.
    public var postLogoutRedirectURI: String?
    /// The scopes every sign-in asks for.
    public var scopes: [String]
    /// Time limit for each request to the provider, in seconds.
    public var timeout: TimeInterval
    /// How requests reach the provider; `URLSession` unless a test or an app brings its own.
    public var transport: any HTTPTransport
    /// Where the signed-in users' tokens (and the device tokens of earlier sign-ins) are kept.
    public var tokenStorage: any TokenStorage
    /// How new sessions' tokens are guarded in ``tokenStorage``; ``UserSession/protect(with:)`` changes one session's.
    public var sessionProtection: SessionProtection
    /// Refresh the access token when it expires within this many seconds.
    public var refreshMargin: TimeInterval
    /// Where the SDK reports what it does. It never logs passwords, codes or tokens.
    public var logger: Logger
    /// The languages the app's user reads, most preferred first (BCP 47 tags, as `Locale.preferredLanguages`
    /// gives them): sent as `Accept-Language`, so the provider's messages arrive in them where it has them.
    public var preferredLanguages: [String]
    /// Takes part in every request to the provider: adds headers, watches requests and answers.
    public var requestHook: (any RequestHook)?
    /// Where DPoP keys come from (RFC 9449), when the app wants its tokens bound to a key: ``SoftwareDPoPKeys``, or
    /// `SecureEnclaveDPoPKeys` on Apple devices. `nil` (the default) keeps bearer tokens.
    public var dpop: (any DPoPKeyProvider)?

    /// A configuration; the defaults ask for `openid profile email offline_access`, allow 30 seconds per request,
    /// use `URLSession`, refresh access tokens a minute before they expire, and ask for the system's preferred
    /// languages.
    public init(
        issuer: URL, discoveryURL: URL? = nil, clientID: String, redirectURI: String,
        scopes: [String] = ["openid", "profile", "email", "offline_access"], timeout: TimeInterval = 30,
        transport: any HTTPTransport = URLSessionTransport(), tokenStorage: any TokenStorage = MemoryTokenStorage(),
        refreshMargin: TimeInterval = 60, logger: Logger = Logger(label: "gatehouse"),
        preferredLanguages: [String] = Locale.preferredLanguages, requestHook: (any RequestHook)? = nil,
        dpop: (any DPoPKeyProvider)? = nil, postLogoutRedirectURI: String? = nil, sessionProtection: SessionProtection = .standard
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
        self.preferredLanguages = preferredLanguages
        self.requestHook = requestHook
        self.dpop = dpop
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.sessionProtection = sessionProtection
    }

    /// ``transport`` with the app's languages and ``requestHook``: what every request to the provider goes through.
    var providerTransport: any HTTPTransport {
        ProviderTransport(base: transport, languages: preferredLanguages, hook: requestHook)
    }

    /// The prefix of the storage accounts the SDK uses for this issuer and client (``TokenStorage``).
    var storageAccount: String { "\(issuer.absoluteString)#\(clientID)" }
}
