import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The SDK's browser sign-in against a live server: the real loopback listener on 127.0.0.1 (RFC 8252 §7.3), with a
/// browser stand-in that signs in on the hosted page over HTTP and follows the redirects back to the listener, as the
/// system browser would; then sign-out in the same browser, and answers that do not belong to the request.
@Suite("SDK browser sign-in against a live server")
struct SDKBrowserSignInTests {
    static let loopback = "http://127.0.0.1/callback"

    /// A registered public client for loopback sign-in and sign-out, and the app's configuration for it.
    static func prepare(_ server: IdentityServer, issuer: URL, storage: any TokenStorage = MemoryTokenStorage()) async throws -> GatehouseConfiguration {
        let hash = try await server.hasher.hash(SDKLiveFlowTests.password)
        try await server.users.create(username: "sam", email: "sam@example.com", name: "Sam", passwordHash: hash)
        try await server.clients.create(
            id: "desktop", secret: nil, redirectURIs: [loopback], postLogoutRedirectURIs: [loopback], scopes: ClientRegistrationRules.defaultScopes)
        return GatehouseConfiguration(issuer: issuer, clientID: "desktop", redirectURI: loopback, tokenStorage: storage)
    }

    /// A loopback user agent whose "browser" is `browser`: it opens the page in a task of its own, like a separate
    /// program, follows it to the listener's path and calls the listener; what it saw is kept in `visits`.
    static func userAgent(_ browser: BrowserStandIn, visits: LockedList, timeout: TimeInterval = 30) -> LoopbackUserAgent {
        LoopbackUserAgent(timeout: timeout) { page in
            visits.append(page.absoluteString)
            Task {
                do {
                    let back = try await browser.follow(page) { $0.path == "/callback" && $0.host == "127.0.0.1" }
                    let (status, _, body) = try await browser.send(back)
                    visits.append("\(status) \(body)")
                } catch {
                    visits.append("failed: \(error)")
                }
            }
        }
    }

    @Test("loopback: sign in with PKCE, bound tokens, single sign-on, max_age; sign out in the browser ends its session too")
    func loopbackSignInAndOut() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let storage = MemoryTokenStorage()
            var configuration = try await Self.prepare(server, issuer: issuer, storage: storage)
            configuration.dpop = SoftwareDPoPKeys()
            let client = GatehouseClient(configuration: configuration)
            let browser = BrowserStandIn(username: "sam", password: SDKLiveFlowTests.password)
            defer { browser.shutdown() }
            let visits = LockedList()

            // Not pushed, so the parameters can be read from the page's URL; the sign-ins below push theirs (RFC 9126).
            let options = BrowserSignInOptions(
                loginHint: "sam", maxAge: 600, additionalParameters: ["client_id": "someone-else", "display": "page"], pushesRequest: false)
            let user = try await client.signInWithBrowser(using: Self.userAgent(browser, visits: visits), options: options)
            #expect(await user.claims?.preferredUsername == "sam")
            #expect(await user.isDPoPBound)
            #expect(try await user.userinfo(cache: false).email == "sam@example.com")
            let page = try #require(visits.items.first.flatMap { URLComponents(string: $0) })
            let sent = Dictionary(uniqueKeysWithValues: (page.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(sent["client_id"] == "desktop" && sent["display"] == "page" && sent["code_challenge_method"] == "S256")
            #expect(sent["login_hint"] == "sam" && sent["max_age"] == "600" && sent["response_type"] == "code")
            // The code is bound to the session's DPoP key before it is issued (RFC 9449 §10).
            let issued = try #require(await user.currentTokens)
            let record = try #require(try await server.tokens.activeAccessToken(issued.accessToken))
            #expect(sent["dpop_jkt"] != nil && sent["dpop_jkt"] == record.jkt)
            let redirectURI = try #require(sent["redirect_uri"].flatMap(URLComponents.init(string:)))
            #expect(redirectURI.host == "127.0.0.1" && redirectURI.port != nil && redirectURI.path == "/callback")
            #expect(await visits.eventually { $0.contains { $0.hasPrefix("200 ") && $0.contains("You are signed in") } })
            #expect(browser.hasCookie(server.cookies.sessionName, host: "127.0.0.1"))
            // The sign-in is stored like a native one: a later launch finds it.
            #expect(try await GatehouseClient(configuration: configuration).currentUser() != nil)

            // A step-up in the browser with max_age=0 asks for the password again and gives this session the new tokens.
            let before = try #require(await user.currentTokens)
            try await user.stepUp(using: Self.userAgent(browser, visits: visits), acrValues: [], maxAge: 0)
            let after = try #require(await user.currentTokens)
            #expect(after.refreshToken != before.refreshToken && after.accessToken != before.accessToken)
            #expect(try await server.tokens.activeAccessToken(after.accessToken) != nil)

            // The browser is signed in at the provider: prompt=none signs in again without a page.
            let silent = try await client.signInWithBrowser(
                using: Self.userAgent(browser, visits: visits), options: BrowserSignInOptions(prompt: ["none"]))
            #expect(await silent.claims?.subject == user.claims?.subject)
            let pushedPage = try #require(visits.items.last { $0.contains("/authorize?") }.flatMap { URLComponents(string: $0) })
            #expect(pushedPage.queryItems?.map(\.name) == ["client_id", "request_uri"])
            #expect(pushedPage.queryItems?.last?.value?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)

            // Signing out in the browser revokes the tokens and ends the browser's session at the provider.
            let tokens = try #require(await silent.currentTokens)
            try await silent.logout(using: Self.userAgent(browser, visits: visits))
            // The browser reads the listener's page just after the listener hands the answer over.
            #expect(await visits.eventually { $0.contains { $0.contains("You are signed out") } })
            #expect(!browser.hasCookie(server.cookies.sessionName, host: "127.0.0.1"))
            #expect(try await server.tokens.activeAccessToken(tokens.accessToken) == nil)
            #expect(try await GatehouseClient(configuration: configuration).currentUser() == nil)

            // So prompt=none now comes back with the provider's refusal, as a typed error.
            await #expect(throws: GatehouseError.browserRedirect(.refused(error: "login_required", description: "The user is not signed in."))) {
                _ = try await client.signInWithBrowser(using: Self.userAgent(browser, visits: visits), options: BrowserSignInOptions(prompt: ["none"]))
            }
        }
    }

    @Test("answers that are not the request's are refused: another state, another or no issuer; refusals, cancellation and silence are typed")
    func foreignAnswers() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let configuration = try await Self.prepare(server, issuer: issuer)
            let client = GatehouseClient(configuration: configuration)
            /// A user agent that answers at once with `query(state)` appended to the redirect URI.
            func answering(_ query: @escaping @Sendable (String) -> String) -> ForgedAnswer { ForgedAnswer(query: query) }
            let iss = FormEncoding.encode(issuer.absoluteString)
            let cases: [(ForgedAnswer, GatehouseError)] = [
                (answering { _ in "code=stolen&state=someone-elses&iss=\(iss)" }, .browserRedirect(.stateMismatch)),
                (answering { _ in "code=stolen&iss=\(iss)" }, .browserRedirect(.stateMismatch)),
                (
                    answering { "code=stolen&state=\($0)&iss=https%3A%2F%2Fattacker.example" },
                    .browserRedirect(.issuerMismatch(expected: issuer.absoluteString, found: "https://attacker.example"))
                ),
                // Gatehouse promises `iss` (authorization_response_iss_parameter_supported), so an answer without it is foreign.
                (answering { "code=stolen&state=\($0)" }, .browserRedirect(.issuerMismatch(expected: issuer.absoluteString, found: nil))),
                (
                    answering { "error=access_denied&error_description=The+user+said+no&state=\($0)&iss=\(iss)" },
                    .browserRedirect(.refused(error: "access_denied", description: "The user said no"))
                ),
                // A refusal with another request's state is not believed either.
                (answering { _ in "error=access_denied&state=forged&iss=\(iss)" }, .browserRedirect(.stateMismatch)),
                (answering { "state=\($0)&iss=\(iss)" }, .browserRedirect(.missingCode)),
                // The request's own state and issuer, but a code the provider never issued: the exchange is refused.
                (answering { "code=made-up&state=\($0)&iss=\(iss)" }, .signedOut),
            ]
            // Not pushed, so the stand-in can read the request's state from the page's URL.
            let readable = BrowserSignInOptions(pushesRequest: false)
            for (agent, expected) in cases {
                await #expect(throws: expected) { _ = try await client.signInWithBrowser(using: agent, options: readable) }
            }

            // The person closed the browser; the browser never came back; the app cancelled the wait.
            await #expect(throws: GatehouseError.cancelled) { _ = try await client.signInWithBrowser(using: ClosedBrowser()) }
            await #expect(throws: GatehouseError.userAgent("no answer came back from the browser within 1 seconds")) {
                _ = try await client.signInWithBrowser(using: LoopbackUserAgent(timeout: 1) { _ in })
            }
            let waiting = Task { try await client.signInWithBrowser(using: LoopbackUserAgent(timeout: 60) { _ in }) }
            try await Task.sleep(nanoseconds: 300_000_000)
            waiting.cancel()
            await #expect(throws: GatehouseError.cancelled) { _ = try await waiting.value }
        }
    }
}

extension LockedList {
    /// Whether the items meet `condition` within two seconds.
    func eventually(_ condition: ([String]) -> Bool) async -> Bool {
        for _ in 0..<40 {
            if condition(items) { return true }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return condition(items)
    }
}

/// A user agent standing in for an attacker's (or a confused) redirect: it answers without showing anything.
struct ForgedAnswer: BrowserUserAgent {
    let query: @Sendable (String) -> String

    func present(_ page: BrowserPage) async throws -> BrowserRedirect {
        let url = try await page.url(redirectURI: page.registeredRedirectURI)
        let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
        return BrowserRedirect(url: URL(string: "http://127.0.0.1:1/callback?" + query(state))!, redirectURI: page.registeredRedirectURI)
    }
}

/// The person closed the browser.
struct ClosedBrowser: BrowserUserAgent {
    func present(_ page: BrowserPage) async throws -> BrowserRedirect { throw CancellationError() }
}
