import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A signed-in user: keeps the tokens fresh, stored, and shared by everyone who asks.
///
/// ``accessToken()`` refreshes when the token is about to expire. Concurrent callers share one refresh,
/// so a rotated refresh token is never sent twice (Gatehouse would revoke the whole session if it were).
public actor UserSession {
    /// The server, client and redirect URI the session's tokens belong to.
    public nonisolated let configuration: GatehouseConfiguration
    /// The user's subject at the provider (`sub`): the account this session is, among those stored on the device.
    public nonisolated let subject: String
    /// How the session's tokens are guarded on the device (``protect(with:)``).
    public private(set) var protection: SessionProtection
    /// Who signed in, from the ID token validated at sign-in (or the last refresh).
    public private(set) var claims: IDTokenClaims?
    private var client: TokenClient
    private let validator: IDTokenValidator
    private var tokens: TokenSet?
    private var refreshing: Task<Result<TokenSet, GatehouseError>, Never>?
    private var cachedUserInfo: UserInfo?
    /// The key the tokens are bound to (RFC 9449), when the app asked for DPoP.
    private var dpop: DPoPProofs?
    /// The provider's metadata the session was started with.
    let metadata: OpenIDProviderMetadata

    init(
        configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata, tokens: TokenSet, claims: IDTokenClaims?, dpop: DPoPProofs? = nil,
        subject: String? = nil, protection: SessionProtection
    ) throws(GatehouseError) {
        self.configuration = configuration
        self.dpop = dpop
        self.metadata = metadata
        self.protection = protection
        client = TokenClient(configuration: configuration, metadata: metadata, dpop: dpop)
        validator = try IDTokenValidator(configuration: configuration, metadata: metadata)
        self.tokens = tokens
        let claims = claims ?? tokens.idToken.flatMap(IDTokenClaims.previouslyValidated)
        self.claims = claims
        self.subject = subject ?? claims?.subject ?? "unknown"
    }

    /// Starts a session from freshly issued (and already validated) tokens and stores them.
    public static func start(
        with tokens: TokenSet, configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata
    ) async throws(GatehouseError) -> UserSession {
        try await start(with: tokens, claims: nil, configuration: configuration, metadata: metadata)
    }

    /// Starts a session whose ID token was just validated into `claims`, stores its tokens (guarded by
    /// ``GatehouseConfiguration/sessionProtection``) and makes its account the default one.
    static func start(
        with tokens: TokenSet, claims: IDTokenClaims?, configuration: GatehouseConfiguration,
        metadata: OpenIDProviderMetadata, dpop: DPoPProofs? = nil
    ) async throws(GatehouseError) -> UserSession {
        let session = try UserSession(
            configuration: configuration, metadata: metadata, tokens: tokens, claims: claims, dpop: dpop, protection: configuration.sessionProtection)
        let directory = AccountDirectory(configuration: configuration)
        // The same person signed in again: their record is replaced, so its refresh token would only linger, unused.
        // A protected record is left unread (reading it would ask the person for Face ID in the middle of a sign-in).
        let earlier = try? await directory.accounts().first { $0.subject == session.subject }
        let replaced = earlier?.protection == .standard ? try? await directory.session(of: session.subject) : nil
        try await session.store(tokens)
        if let replaced, let refreshToken = replaced.tokens.refreshToken, refreshToken != tokens.refreshToken {
            let previous = TokenClient(configuration: configuration, metadata: metadata, dpop: try? Self.proofs(for: replaced, configuration: configuration))
            try? await previous.revoke(refreshToken, hint: "refresh_token")
        }
        let claims = await session.claims
        try await directory.add(
            StoredAccount(
                subject: session.subject, username: claims?.preferredUsername, name: claims?.name, email: claims?.email, signedInAt: Date(),
                protection: configuration.sessionProtection))
        return session
    }

    /// The default account's session from an earlier launch (``GatehouseClient/accounts()``), or `nil` when there is
    /// none (or it was stored by a newer SDK). A session stored by a release before several accounts is moved into the
    /// account list first and restored as the default.
    public static func restore(configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata) async throws(GatehouseError) -> UserSession? {
        guard let account = try await AccountDirectory(configuration: configuration).defaultAccount() else { return nil }
        return try await restore(account, configuration: configuration, metadata: metadata)
    }

    /// The session of `account` from an earlier launch, or `nil` when its tokens are gone.
    static func restore(
        _ account: StoredAccount, configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata
    ) async throws(GatehouseError) -> UserSession? {
        guard let stored = try await AccountDirectory(configuration: configuration).session(of: account.subject) else { return nil }
        return try UserSession(
            configuration: configuration, metadata: metadata, tokens: stored.tokens, claims: nil,
            dpop: try proofs(for: stored, configuration: configuration), subject: account.subject, protection: stored.protection)
    }

    /// The key a stored session's tokens are bound to, if they are: needed whether or not this launch asks for DPoP
    /// for new sign-ins.
    private static func proofs(for stored: StoredTokenFormat.Stored, configuration: GatehouseConfiguration) throws(GatehouseError) -> DPoPProofs? {
        guard let representation = stored.dpopKey else { return nil }
        do {
            return DPoPProofs(key: try (configuration.dpop ?? SoftwareDPoPKeys()).restoreKey(from: representation))
        } catch {
            throw .dpopKey(ErrorCause(error))
        }
    }

    /// The current tokens, as stored; `nil` after ``logout()`` or ``revoke()``.
    public var currentTokens: TokenSet? { tokens }

    /// Whether the user signed out (or was signed out by the provider) since this session started.
    public var isSignedOut: Bool { tokens == nil }

    /// A valid access token, refreshed first when it expires within ``GatehouseConfiguration/refreshMargin``.
    public func accessToken() async throws(GatehouseError) -> String {
        guard let tokens else { throw .signedOut }
        if tokens.expires(within: configuration.refreshMargin) {
            return try await refresh().accessToken
        }
        return tokens.accessToken
    }

    /// Refreshes the tokens now; callers arriving while a refresh runs wait for that one.
    @discardableResult
    public func refresh() async throws(GatehouseError) -> TokenSet {
        if let refreshing { return try await refreshing.value.get() }
        let task = Task { () async -> Result<TokenSet, GatehouseError> in
            do throws(GatehouseError) { return .success(try await self.performRefresh()) } catch { return .failure(error) }
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value.get()
    }

    /// The user's claims from the userinfo endpoint; cached after the first call unless `cache` is false.
    public func userinfo(cache: Bool = true) async throws(GatehouseError) -> UserInfo {
        if cache, let cachedUserInfo { return cachedUserInfo }
        do {
            let token = try await accessToken()
            let info = try await client.userinfo(accessToken: token, tokenType: tokens?.tokenType ?? "Bearer")
            cachedUserInfo = info
            return info
        } catch .signedOut {
            try await forget()
            throw .signedOut
        }
    }

    /// `request` with the access token (refreshed first when about to expire) in its `Authorization` header, for the
    /// app's own API: as `DPoP <token>` with a fresh proof for the request's method and URL when the tokens are bound
    /// to a key (RFC 9449 §7), as `Bearer <token>` otherwise.
    public func authorizedRequest(for request: URLRequest) async throws(GatehouseError) -> URLRequest {
        let token = try await accessToken()
        var authorized = request
        try await client.authorize(&authorized, accessToken: token, tokenType: tokens?.tokenType ?? "Bearer")
        return authorized
    }

    /// The assurance class Gatehouse names a sign-in with a second factor by (`acr`).
    public static let multiFactorACR = "urn:gatehouse:acr:mfa"

    /// The assurance the current sign-in met (`acr` of its ID token), e.g. ``multiFactorACR``.
    public var acr: String? { claims?.authenticationContext }

    /// How the current sign-in was made (`amr` of its ID token): `pwd`, `otp`, `mfa`, `hwk`, ….
    public var amr: [String] { claims?.authenticationMethods ?? [] }

    /// Signs the same person in again, more strongly — with a second factor by default — before something that
    /// needs it; drive the returned node like any sign-in. On success this session's tokens are replaced (and stored),
    /// so everything holding the session goes on with the stronger ones; a sign-in by someone else fails and leaves
    /// the session as it was.
    /// An empty `acrValues` asks for no particular assurance: a new sign-in of the same person (what `maxAge`, or an
    /// ``AccountStepUp``, asks for; a native flow always signs in anew).
    public func stepUp(acrValues: [String] = [UserSession.multiFactorACR], maxAge: Int? = nil) async -> Node {
        await FlowContext.begin(
            client: GatehouseClient(configuration: configuration), kind: .login, loginHint: claims?.preferredUsername,
            acrValues: acrValues.isEmpty ? nil : acrValues, maxAge: maxAge, replacing: self)
    }

    /// Sends `request` to a protected resource of the provider with this session's access token (refreshed first when
    /// about to expire), as a DPoP-bound token with a proof when the session is bound.
    func sendToResource(_ request: URLRequest) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        let token = try await accessToken()
        return try await client.resource(request, accessToken: token, tokenType: tokens?.tokenType ?? "Bearer")
    }

    /// A request that accepts JSON, to `url`, with the configured timeout.
    nonisolated func request(_ url: URL) throws(GatehouseError) -> URLRequest {
        try ProviderRequest(configuration: configuration).make(url.absoluteString)
    }

    /// Takes the tokens of a step-up sign-in of the same subject, with their key, and stores them.
    func replaceTokens(with tokens: TokenSet, claims newClaims: IDTokenClaims, dpop newDPoP: DPoPProofs?) async throws(GatehouseError) {
        if let subject = claims?.subject, subject != newClaims.subject {
            // Not kept, so not left usable either.
            let unwanted = TokenClient(configuration: configuration, metadata: metadata, dpop: newDPoP)
            if let refreshToken = tokens.refreshToken { try? await unwanted.revoke(refreshToken, hint: "refresh_token") }
            throw .provider(status: 200, error: "wrong_user", description: "The step-up sign-in was made by another user; the session is unchanged.")
        }
        if let refreshToken = self.tokens?.refreshToken {
            // The weaker sign-in's refresh token is of no more use; revoked so it cannot outlive the step-up.
            try? await client.revoke(refreshToken, hint: "refresh_token")
        }
        dpop = newDPoP
        client = TokenClient(configuration: configuration, metadata: metadata, dpop: newDPoP)
        claims = newClaims
        cachedUserInfo = nil
        self.tokens = tokens
        try await store(tokens)
    }

    /// Whether the session's tokens are bound to a DPoP key (RFC 9449).
    public var isDPoPBound: Bool { dpop != nil && tokens?.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame }

    /// Revokes the session's tokens at the provider (the refresh token takes its access tokens with it)
    /// and forgets them here.
    public func revoke() async throws(GatehouseError) {
        guard let tokens else { return }
        if let refreshToken = tokens.refreshToken {
            try await client.revoke(refreshToken, hint: "refresh_token")
        } else {
            try await client.revoke(tokens.accessToken, hint: "access_token")
        }
        try await forget()
    }

    /// Signs the user out: revokes the tokens at the provider and removes them from this device.
    ///
    /// The tokens are removed even when the provider cannot be reached (the error is still thrown, so
    /// the app can tell the user); a revoked or expired session counts as signed out.
    public func logout() async throws(GatehouseError) {
        guard let tokens else { return }
        var failure: GatehouseError?
        for (token, hint) in [(tokens.refreshToken, "refresh_token"), (tokens.accessToken, "access_token")] {
            guard let token else { continue }
            do {
                try await client.revoke(token, hint: hint)
            } catch .signedOut {
                continue
            } catch {
                failure = failure ?? error
            }
        }
        try await forget()
        configuration.logger.info("Signed out", metadata: ["subject": "\(claims?.subject ?? "")"])
        if let failure { throw failure }
    }

    private func performRefresh() async throws(GatehouseError) -> TokenSet {
        guard let current = tokens, let refreshToken = current.refreshToken else { throw .signedOut }
        let response: TokenResponse
        do {
            response = try await client.refresh(refreshToken)
        } catch  where error.requiresSignIn {
            try await forget()
            throw error
        }
        if let idToken = response.idToken {
            claims = try await validator.checked(idToken, nonce: nil)
        }
        let refreshed = TokenSet(response: response, previous: current)
        tokens = refreshed
        try await store(refreshed)
        return refreshed
    }

    /// Stores the session's tokens again guarded by `protection` — say ``SessionProtection/biometry`` once the person
    /// turns on "Unlock with Face ID" — and keeps storing them so after every refresh.
    ///
    /// - Throws: ``GatehouseError/storage(_:)`` when the storage cannot enforce it
    ///   (``TokenStorageError/protectionUnavailable(_:)``); the tokens stay stored as they were.
    public func protect(with protection: SessionProtection) async throws(GatehouseError) {
        guard let tokens else { throw .signedOut }
        let previous = self.protection
        self.protection = protection
        do throws(GatehouseError) {
            try await store(tokens)
        } catch {
            self.protection = previous
            throw error
        }
        try await AccountDirectory(configuration: configuration).setProtection(protection, of: subject)
    }

    private func store(_ tokens: TokenSet) async throws(GatehouseError) {
        try await AccountDirectory(configuration: configuration).storeSession(
            .init(tokens: tokens, dpopKey: dpop?.key.storedRepresentation, protection: protection), of: subject)
    }

    private func forget() async throws(GatehouseError) {
        tokens = nil
        cachedUserInfo = nil
        try await AccountDirectory(configuration: configuration).remove(subject)
    }
}
