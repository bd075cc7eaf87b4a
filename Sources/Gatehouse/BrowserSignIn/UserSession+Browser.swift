import Foundation
import GatehouseProtocol

extension UserSession {
    /// Signs the user out here and in the browser: revokes the tokens and removes them from this device (as
    /// ``logout()`` does), then shows the provider's end-session page in `userAgent` (OpenID Connect RP-Initiated
    /// Logout) with the ID token as hint, so the browser's session at the provider ends too and the next browser
    /// sign-in asks again. The provider sends the browser back to ``GatehouseConfiguration/postLogoutRedirectURI``
    /// (the redirect URI when there is none), which the client must have registered as a post-logout redirect URI.
    ///
    /// - Throws: what ``logout()`` throws (the tokens are removed here all the same), ``GatehouseError/cancelled`` when
    ///   the person closed the browser, ``GatehouseError/browserRedirect(_:)`` when the answer was not for this request.
    public func logout(using userAgent: any BrowserUserAgent) async throws(GatehouseError) {
        let idToken = currentTokens?.idToken
        var failure: GatehouseError?
        do {
            try await logout()
        } catch {
            failure = error
        }
        guard let endpoint = URL(string: metadata.endSessionEndpoint) else {
            throw failure ?? .discovery(.malformedDocument("end_session_endpoint is not a URL"))
        }
        let state = PKCE.makeVerifier()
        var parameters: [(name: String, value: String)] = [("client_id", configuration.clientID), ("state", state)]
        if let idToken { parameters.append(("id_token_hint", idToken)) }
        if !configuration.preferredLanguages.isEmpty { parameters.append(("ui_locales", configuration.preferredLanguages.joined(separator: " "))) }
        let page = BrowserPage(
            purpose: .signOut, endpoint: endpoint, parameters: parameters,
            registeredRedirectURI: configuration.postLogoutRedirectURI ?? configuration.redirectURI, preferredLanguages: configuration.preferredLanguages)
        let redirect = try await GatehouseClient.present(page, with: userAgent)
        let query = URLComponents(url: redirect.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        let returned = FormEncoding.decode(query).first { $0.name == "state" }?.value
        guard let returned, ConstantTime.equals(returned, state) else { throw .browserRedirect(.stateMismatch) }
        if let failure { throw failure }
    }

    /// Signs the same person in again in the browser, more strongly — with a second factor by default — and gives this
    /// session the new tokens, as ``stepUp(acrValues:maxAge:)`` does for a native flow. `maxAge: 0` asks for the credentials
    /// again even when the browser is signed in already.
    ///
    /// - Throws: what ``GatehouseClient/signInWithBrowser(using:options:)`` throws; a sign-in by someone else fails with
    ///   ``GatehouseError/provider(status:error:description:)`` `wrong_user` and leaves the session as it was.
    public func stepUp(
        using userAgent: any BrowserUserAgent, acrValues: [String] = [UserSession.multiFactorACR], maxAge: Int? = nil
    ) async throws(GatehouseError) {
        let options = BrowserSignInOptions(loginHint: claims?.preferredUsername, acrValues: acrValues, maxAge: maxAge)
        _ = try await GatehouseClient(configuration: configuration).signInWithBrowser(using: userAgent, options: options, replacing: self)
    }
}
