import Foundation
import GatehouseProtocol

extension GatehouseClient {
    /// Signs in through the provider's own pages in a browser — the way RFC 8252 asks native apps to — instead of a
    /// native flow: an authorization request with PKCE (S256), `state` and `nonce`, shown by `userAgent`; the answer
    /// accepted only with this request's `state` and the provider's `iss` (RFC 9207); the code exchanged (with a DPoP
    /// key when ``GatehouseConfiguration/dpop`` asks for one); the ID token validated; the session stored like any other.
    ///
    /// ```swift
    /// // macOS or Linux: the system browser, and a listener on 127.0.0.1 (register http://127.0.0.1/callback).
    /// let user = try await gatehouse.signInWithBrowser(using: LoopbackUserAgent.systemBrowser())
    /// // iOS and macOS apps: ASWebAuthenticationSession with the app's scheme.
    /// let user = try await gatehouse.signInWithBrowser(using: WebAuthenticationSessionBrowser(anchor: window))
    /// ```
    ///
    /// - Throws: ``GatehouseError/browserRedirect(_:)`` when the provider refused (``BrowserRedirectError/refused(error:description:)``,
    ///   e.g. `access_denied`, or `login_required` after `prompt: ["none"]`) or the answer was not for this request;
    ///   ``GatehouseError/cancelled`` when the person closed the browser; ``GatehouseError/userAgent(_:)`` when the
    ///   browser could not be shown or did not come back; ``GatehouseError/invalidIDToken(_:)``; ``GatehouseError/network(_:)``.
    public func signInWithBrowser(
        using userAgent: any BrowserUserAgent, options: BrowserSignInOptions = .init()
    ) async throws(GatehouseError)
        -> UserSession
    {
        try await signInWithBrowser(using: userAgent, options: options, replacing: nil).user
    }

    func signInWithBrowser(
        using userAgent: any BrowserUserAgent, options: BrowserSignInOptions, replacing: UserSession?
    ) async throws(GatehouseError)
        -> SuccessNode
    {
        let metadata = try await metadata()
        guard let endpoint = URL(string: metadata.authorizationEndpoint) else {
            throw .discovery(.malformedDocument("authorization_endpoint is not a URL"))
        }
        let verifier = PKCE.makeVerifier()
        let state = PKCE.makeVerifier()
        let nonce = PKCE.makeVerifier()
        let completion = try SignInCompletion(configuration: configuration, metadata: metadata)
        var parameters: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", configuration.clientID),
            ("scope", (options.scopes ?? configuration.scopes).joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", PKCE.method),
        ]
        if !options.prompt.isEmpty { parameters.append(("prompt", options.prompt.joined(separator: " "))) }
        if let loginHint = options.loginHint { parameters.append(("login_hint", loginHint)) }
        if !options.acrValues.isEmpty { parameters.append(("acr_values", options.acrValues.joined(separator: " "))) }
        if let maxAge = options.maxAge { parameters.append(("max_age", String(maxAge))) }
        if let thumbprint = completion.dpopThumbprint { parameters.append(("dpop_jkt", thumbprint)) }
        if !configuration.preferredLanguages.isEmpty { parameters.append(("ui_locales", configuration.preferredLanguages.joined(separator: " "))) }
        let reserved = Set(parameters.map(\.name) + ["redirect_uri", "response_mode", "request", "request_uri"])
        for (name, value) in options.additionalParameters.sorted(by: { $0.key < $1.key }) where !reserved.contains(name) {
            parameters.append((name, value))
        }
        var push: (@Sendable ([(name: String, value: String)]) async throws(GatehouseError) -> String)?
        if options.pushesRequest, metadata.pushedAuthorizationRequestEndpoint != nil {
            let tokenClient = completion.tokenClient
            push = { parameters throws(GatehouseError) in try await tokenClient.pushAuthorizationRequest(parameters).requestURI }
        }
        let page = BrowserPage(
            purpose: .signIn, endpoint: endpoint, parameters: parameters, registeredRedirectURI: configuration.redirectURI,
            preferredLanguages: configuration.preferredLanguages, push: push)
        let redirect = try await Self.present(page, with: userAgent)
        let code = try Self.code(in: redirect.url, state: state, metadata: metadata)
        configuration.logger.debug("The browser came back with a code")
        return try await completion.exchange(
            code: code, verifier: verifier, redirectURI: redirect.redirectURI, nonce: nonce, maxAge: options.maxAge, replacing: replacing)
    }

    /// Shows `page` with `userAgent`, turning what the user agent throws into the SDK's errors.
    static func present(_ page: BrowserPage, with userAgent: any BrowserUserAgent) async throws(GatehouseError) -> BrowserRedirect {
        do {
            return try await userAgent.present(page)
        } catch let error as GatehouseError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .userAgent(ErrorCause(error))
        }
    }

    /// The authorization code in the browser's answer, once the answer is shown to be this request's: from this
    /// provider (`iss`, RFC 9207 §2.4) and with this request's `state`, compared in constant time. Only then is an
    /// error believed, so a forged answer cannot pass for the provider's refusal either.
    static func code(in answer: URL, state: String, metadata: OpenIDProviderMetadata) throws(GatehouseError) -> String {
        // The answer is form-encoded (RFC 6749 Appendix B): some providers write spaces as `+`.
        let items = FormEncoding.decode(URLComponents(url: answer, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let issuer = value("iss")
        if issuer != nil || metadata.authorizationResponseIssParameterSupported {
            guard issuer == metadata.issuer else { throw .browserRedirect(.issuerMismatch(expected: metadata.issuer, found: issuer)) }
        }
        guard let returned = value("state"), ConstantTime.equals(returned, state) else { throw .browserRedirect(.stateMismatch) }
        if let error = value("error") { throw .browserRedirect(.refused(error: error, description: value("error_description"))) }
        guard let code = value("code"), !code.isEmpty else { throw .browserRedirect(.missingCode) }
        return code
    }
}
