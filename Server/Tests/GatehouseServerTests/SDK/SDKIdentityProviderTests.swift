import AsyncHTTPClient
import Foundation
import Gatehouse
import GatehouseProtocol
import NIOCore
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// An app signing in with another identity provider through the SDK: a second live Gatehouse is the provider, and a
/// browser stand-in plays the app's browser session (it signs in on the provider's hosted page and follows the
/// redirects until the app's redirect URI), as ASWebAuthenticationSession would.
@Suite("SDK: signing in with another identity provider")
struct SDKIdentityProviderTests {
    static let secret = "downstream-client-secret-0123456789abcdef"

    /// A live Gatehouse (configured further by `configure`) that signs in with another live one, the upstream
    /// provider, where Uma has an account; its email is trusted.
    static func withUpstream(
        configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (IdentityServer, URL) async throws -> Void
    ) async throws {
        try await TestServer.withLiveServer(hostName: "localhost") { upstream, upstreamIssuer in
            let hash = try await upstream.hasher.hash(SDKLiveFlowTests.password)
            try await upstream.users.create(username: "uma", email: "uma@upstream.example", name: "Uma Upstream", passwordHash: hash)
            try await TestServer.withLiveServer(configure: { configuration in
                var provider = IdentityProvider(
                    id: "upstream", name: "Upstream", issuer: upstreamIssuer.absoluteString, clientID: "downstream", clientSecret: Self.secret)
                provider.trustEmail = true
                configuration.identityProviders = [provider]
                configure(&configuration)
            }) { server, issuer in
                try await upstream.clients.create(
                    id: "downstream", secret: Self.secret, redirectURIs: [server.issuer + "/login/idp/callback"], scopes: ClientRegistrationRules.defaultScopes)
                try await body(server, issuer)
            }
        }
    }

    @Test("the native flow resumes with the browser's return: an account from the provider's claims, amr fed; a closed browser leaves the node")
    func nativeFlow() async throws {
        try await Self.withUpstream { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            guard case .continue(let first) = await client.start(), let provider = first.identityProviders.first else {
                Issue.record("expected the sign-in node to offer the provider")
                return
            }
            #expect(provider.providerID == "upstream" && provider.label == "Sign in with Upstream")

            // The person closes the browser: the same node, with a message.
            let closed = await first.next(signingInWith: provider, browser: ClosureIdentityProviderBrowser { _, _ in throw CancellationError() })
            guard case .error(let cancelled) = closed else {
                Issue.record("expected an error node, got \(closed)")
                return
            }
            #expect(cancelled.retry.id == first.id && cancelled.message == "Sign in with Upstream was cancelled." && cancelled.error == .cancelled)
            // A browser that fails is told apart from one the person closed.
            let failed = await first.next(
                signingInWith: provider, browser: ClosureIdentityProviderBrowser { _, _ in throw URLError(.cannotConnectToHost) })
            guard case .error(let broken) = failed, case .userAgent = broken.error else {
                Issue.record("expected an error node with .userAgent, got \(failed)")
                return
            }
            #expect(broken.retry.id == first.id && broken.messages.first?.code == "idp_browser_failed")

            let browser = BrowserStandIn(username: "uma", password: SDKLiveFlowTests.password)
            defer { browser.shutdown() }
            let schemes = LockedList()
            let node = await first.next(
                signingInWith: provider,
                browser: ClosureIdentityProviderBrowser { url, scheme in
                    schemes.append(scheme)
                    return try await browser.follow(url, until: scheme)
                })
            guard case .success(let success) = node else {
                Issue.record("expected to be signed in, got \(node)")
                return
            }
            #expect(schemes.items == ["com.example.app"])
            #expect(success.claims.authenticationMethods == ["fed"] && success.claims.name == "Uma Upstream")
            let uma = try #require(try await server.users.find(username: "uma"))
            #expect(uma.email == "uma@upstream.example" && uma.emailVerified && !uma.hasPassword)
            #expect(try await server.federatedIdentities.identities(of: uma.id).map(\.providerID) == ["upstream"])
        }
    }
}

extension SDKIdentityProviderTests {
    @Test("MultifactorLogin goes on from the node the provider's redirect led to: a second factor set up by an email code")
    func continueAfterTheRedirect() async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.email]
            configuration.clientSignOn["app"] = signOn
        }
        try await Self.withUpstream(configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            guard case .continue(let first) = await client.start(), let provider = first.identityProviders.first else {
                Issue.record("expected the sign-in node to offer the provider")
                return
            }
            let browser = BrowserStandIn(username: "uma", password: SDKLiveFlowTests.password)
            defer { browser.shutdown() }
            let returned = await first.next(
                signingInWith: provider, browser: ClosureIdentityProviderBrowser { url, scheme in try await browser.follow(url, until: scheme) })
            guard case .continue(let pending) = returned else {
                Issue.record("expected the policy's second factor after the redirect, got \(returned)")
                return
            }
            #expect(pending.codeSource == .email)
            let steps = LockedList()
            let login = MultifactorLogin(client: client) { step in
                steps.append("\(step)")
                guard case .verifyCode(.email, nil) = step else { return .done }
                return .code(try await FactorEnrollmentTests.code(sentTo: "uma@upstream.example", server))
            }
            let user = try await login.continue(from: returned)
            #expect(await user.claims?.authenticationMethods.contains("fed") == true)
            #expect(steps.items.count == 1, "\(steps.items)")
            let uma = try #require(try await server.users.find(username: "uma"))
            #expect(try await server.authenticators.enrolledFactors(userID: uma.id) == [.email])
        }
    }
}

/// A list several tasks append to.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.withLock { list.append(item) } }
    var items: [String] { lock.withLock { list } }
}

/// The app's browser session, played over HTTP: follows redirects by hand (keeping each host's cookies), signs in on a
/// Gatehouse hosted sign-in form, and stops at the first redirect to `scheme` (or the first URL `arrived` accepts).
final class BrowserStandIn: @unchecked Sendable {
    private let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    private let lock = NSLock()
    private var cookies: [String: [String: String]] = [:]
    let username: String
    let password: String

    init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    func shutdown() { try? http.syncShutdown() }

    func follow(_ start: URL, until scheme: String) async throws -> URL {
        try await follow(start) { $0.scheme == scheme }
    }

    func follow(_ start: URL, until arrived: (URL) -> Bool) async throws -> URL {
        var url = start
        var form: [(String, String)]?
        for _ in 0..<12 {
            if arrived(url) { return url }
            let (status, location, body) = try await send(url, form: form)
            form = nil
            if let location {
                url = URL(string: location, relativeTo: url)!.absoluteURL
            } else if status == 200, body.contains("name=\"csrf_token\""), let fields = Self.hidden(in: body) {
                form = fields + [("username", username), ("password", password), ("action", "submit")]
                url = URL(string: "/login", relativeTo: url)!.absoluteURL
            } else {
                throw URLError(.badServerResponse)
            }
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// Sets a cookie for `host`, as a browser signed in another way would hold it.
    func setCookie(_ name: String, _ value: String, host: String) {
        lock.withLock { cookies[host, default: [:]][name] = value }
    }

    /// Whether the browser holds a cookie named `name` for `host`.
    func hasCookie(_ name: String, host: String) -> Bool {
        lock.withLock { cookies[host]?[name].map { !$0.isEmpty } ?? false }
    }

    func send(_ url: URL, form: [(String, String)]? = nil) async throws -> (Int, String?, String) {
        var request = HTTPClientRequest(url: url.absoluteString)
        let host = url.host ?? ""
        let jar = lock.withLock { cookies[host] ?? [:] }
        if !jar.isEmpty { request.headers.add(name: "Cookie", value: jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        if let form {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form.map { ($0.0, Optional($0.1)) })))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        for header in response.headers["Set-Cookie"] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2 { lock.withLock { cookies[host, default: [:]][String(pair[0])] = String(pair[1]) } }
        }
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), response.headers.first(name: "Location"), body)
    }

    /// The hidden inputs of the page's form (the flow and its CSRF token).
    private static func hidden(in page: String) -> [(String, String)]? {
        let pattern = /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/
        let found = page.matches(of: pattern).map { (String($0.1), String($0.2)) }
        return found.isEmpty ? nil : found
    }
}
