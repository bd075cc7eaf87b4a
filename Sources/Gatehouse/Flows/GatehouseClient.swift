import Foundation
import GatehouseProtocol

/// The app's entry point to a Gatehouse provider: runs sign-in flows and restores the signed-in user.
///
/// ```swift
/// let gatehouse = GatehouseClient(configuration: .init(
///     issuer: URL(string: "https://id.example.com")!, clientID: "ios-app", redirectURI: "com.example.app:/callback",
///     tokenStorage: KeychainTokenStorage()))
/// if let user = try await gatehouse.currentUser() { ... }
/// let user = try await gatehouse.login(username: "alice", password: password)
/// ```
public final class GatehouseClient: Sendable {
    /// The server, client and redirect URI this client signs in with.
    public let configuration: GatehouseConfiguration
    private let metadataCache = MetadataCache()

    /// A client for the server and app that `configuration` names.
    public init(configuration: GatehouseConfiguration) {
        self.configuration = configuration
    }

    /// The provider's metadata, read once from its discovery document.
    public func metadata() async throws(GatehouseError) -> OpenIDProviderMetadata {
        if let metadata = await metadataCache.metadata { return metadata }
        let discovery = ProviderDiscovery(issuer: configuration.issuer, documentURL: configuration.discoveryURL, transport: configuration.providerTransport)
        let metadata: OpenIDProviderMetadata
        do {
            metadata = try await discovery.metadata()
        } catch let error as DiscoveryError {
            throw .discovery(error)
        } catch {
            throw ProviderRequest.failure(error)
        }
        await metadataCache.store(metadata)
        return metadata
    }

    /// The user signed in on an earlier launch (from the token storage), or `nil`.
    public func currentUser() async throws(GatehouseError) -> UserSession? {
        try await UserSession.restore(configuration: configuration, metadata: try await metadata())
    }

    /// Starts a flow (the login flow unless `kind` says otherwise); the server decides its steps. `loginHint`
    /// pre-fills the username; `acrValues` asks for an assurance (``UserSession/multiFactorACR`` for a second factor
    /// whatever the sign-on policy says); `maxAge` (seconds) has the ID token's `auth_time` checked against it, and
    /// `prompt` is sent as the authorization request's (`login` is what a native flow does anyway; `none` is refused,
    /// since a flow always asks — restore the stored session instead). Registration and recovery end signed in, like
    /// a login.
    public func start(
        _ kind: FlowKind = .login, loginHint: String? = nil, acrValues: [String]? = nil, maxAge: Int? = nil, prompt: [String] = []
    ) async -> Node {
        await FlowContext.begin(
            client: self, kind: kind, loginHint: loginHint, acrValues: acrValues, maxAge: maxAge, prompt: prompt.isEmpty ? nil : prompt)
    }

    /// Signs in with a username and password in one call, for flows that ask for nothing else.
    ///
    /// - Throws: ``GatehouseError/invalidCredentials``, ``GatehouseError/throttled``, ``GatehouseError/locked``,
    ///   ``GatehouseError/flowExpired``, ``GatehouseError/network(_:)``, or ``GatehouseError/unsupportedStep(_:)``
    ///   when the flow asks for more (drive it with ``start(_:loginHint:acrValues:maxAge:prompt:)`` then).
    public func login(username: String, password: String) async throws(GatehouseError) -> UserSession {
        var node = await start(loginHint: username)
        // A login flow has a handful of steps; the bound stops a server that keeps asking.
        for _ in 0..<8 {
            switch node {
            case .continue(var step):
                var filled = false
                for collector in step.collectors {
                    guard let field = collector.field else { continue }
                    switch field.field.kind {
                    case .text where field.key == "username" || field.field.autocomplete == "username":
                        step[field.key] = username
                        filled = true
                    case .password:
                        step[field.key] = password
                        filled = true
                    default:
                        if field.isRequired { throw .unsupportedStep(step.id) }
                    }
                }
                guard filled else { throw .unsupportedStep(step.id) }
                node = await step.next()
            case .error(let error): throw error.error
            case .failure(let failure): throw failure.cause
            case .success(let success): return success.user
            }
        }
        throw .unsupportedStep("too many steps")
    }
}

/// The provider metadata, fetched once and shared.
private actor MetadataCache {
    var metadata: OpenIDProviderMetadata?
    func store(_ metadata: OpenIDProviderMetadata) { self.metadata = metadata }
}
