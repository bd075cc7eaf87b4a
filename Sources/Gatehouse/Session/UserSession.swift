import Foundation
import GatehouseProtocol

/// A signed-in user: keeps the tokens fresh, stored, and shared by everyone who asks.
///
/// ``accessToken()`` refreshes when the token is about to expire. Concurrent callers share one refresh,
/// so a rotated refresh token is never sent twice (Gatehouse would revoke the whole session if it were).
public actor UserSession {
    public nonisolated let configuration: GatehouseConfiguration
    private let client: TokenClient
    private let validator: IDTokenValidator
    private var tokens: TokenSet
    private var refreshing: Task<TokenSet, any Error>?
    private var cachedUserInfo: UserInfo?

    private init(configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata, tokens: TokenSet) throws {
        self.configuration = configuration
        client = TokenClient(configuration: configuration, metadata: metadata)
        guard let jwks = URL(string: metadata.jwksURI) else { throw GatehouseError.unexpectedResponse(status: 200) }
        validator = IDTokenValidator(issuer: metadata.issuer, clientID: configuration.clientID,
                                     keys: RemoteKeySet(url: jwks, transport: configuration.transport))
        self.tokens = tokens
    }

    /// Starts a session from freshly issued tokens and stores them.
    public static func start(with tokens: TokenSet, configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata) async throws -> UserSession {
        let session = try UserSession(configuration: configuration, metadata: metadata, tokens: tokens)
        try await session.store()
        return session
    }

    /// The user signed in on an earlier launch, or `nil` when there is none (or it was stored by a newer SDK).
    public static func restore(configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata) async throws -> UserSession? {
        guard let bytes = try await configuration.tokenStorage.read(account: configuration.storageAccount),
              let tokens = try StoredTokenFormat.decode(Data(bytes))
        else { return nil }
        return try UserSession(configuration: configuration, metadata: metadata, tokens: tokens)
    }

    /// The current tokens, as stored.
    public var currentTokens: TokenSet { tokens }

    /// A valid access token, refreshed first when it expires within ``GatehouseConfiguration/refreshMargin``.
    public func accessToken() async throws -> String {
        if tokens.expires(within: configuration.refreshMargin) {
            return try await refresh().accessToken
        }
        return tokens.accessToken
    }

    /// Refreshes the tokens now; callers arriving while a refresh runs wait for that one.
    @discardableResult
    public func refresh() async throws -> TokenSet {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.performRefresh() }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// The user's claims from the userinfo endpoint; cached after the first call unless `cache` is false.
    public func userinfo(cache: Bool = true) async throws -> UserInfo {
        if cache, let cachedUserInfo { return cachedUserInfo }
        let info = try await client.userinfo(accessToken: try await accessToken())
        cachedUserInfo = info
        return info
    }

    /// Revokes the session at the provider (the refresh token takes its access tokens with it) and forgets it here.
    public func revoke() async throws {
        if let refreshToken = tokens.refreshToken {
            try await client.revoke(refreshToken, hint: "refresh_token")
        } else {
            try await client.revoke(tokens.accessToken, hint: "access_token")
        }
        try await configuration.tokenStorage.remove(account: configuration.storageAccount)
        cachedUserInfo = nil
    }

    private func performRefresh() async throws -> TokenSet {
        guard let refreshToken = tokens.refreshToken else { throw GatehouseError.signedOut }
        let response: TokenResponse
        do {
            response = try await client.refresh(refreshToken)
        } catch let error as GatehouseError where error.requiresSignIn {
            try await configuration.tokenStorage.remove(account: configuration.storageAccount)
            throw error
        }
        if let idToken = response.idToken {
            _ = try await validator.validate(idToken, nonce: nil)
        }
        tokens = TokenSet(response: response, previous: tokens)
        try await store()
        return tokens
    }

    private func store() async throws {
        try await configuration.tokenStorage.write(Array(try StoredTokenFormat.encode(tokens)), account: configuration.storageAccount)
    }
}
