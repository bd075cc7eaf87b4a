import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of browser sign-in that need no provider: the page's URL, the answer's checks, the loopback listener.
@Suite("Browser sign-in")
struct BrowserSignInTests {
    static let metadata = OpenIDProviderMetadata(
        issuer: "https://id.example.com", authorizationEndpoint: "https://id.example.com/authorize", tokenEndpoint: "https://id.example.com/token",
        userinfoEndpoint: "https://id.example.com/userinfo", jwksURI: "https://id.example.com/jwks", revocationEndpoint: "https://id.example.com/revoke",
        introspectionEndpoint: "https://id.example.com/introspect", endSessionEndpoint: "https://id.example.com/logout", scopesSupported: ["openid"],
        responseTypesSupported: ["code"], responseModesSupported: ["query"], grantTypesSupported: ["authorization_code"],
        subjectTypesSupported: ["public"], idTokenSigningAlgValuesSupported: ["RS256"], tokenEndpointAuthMethodsSupported: ["none"],
        codeChallengeMethodsSupported: ["S256"], claimsSupported: ["sub"], promptValuesSupported: ["none", "login"])

    @Test("the page's URL carries every parameter form-encoded, and the redirect URI the user agent chose")
    func pageURL() async throws {
        let page = BrowserPage(
            purpose: .signIn, endpoint: URL(string: "https://id.example.com/authorize")!,
            parameters: [("scope", "openid profile"), ("login_hint", "a+b@example.com"), ("state", "s&t=1")],
            registeredRedirectURI: "http://127.0.0.1/callback")
        let url = try await page.url(redirectURI: "http://127.0.0.1:50123/callback")
        #expect(
            url.absoluteString
                == "https://id.example.com/authorize?scope=openid%20profile&login_hint=a%2Bb%40example.com&state=s%26t%3D1"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A50123%2Fcallback")
        let decoded = FormEncoding.decode(try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery))
        #expect(decoded.map(\.value) == ["openid profile", "a+b@example.com", "s&t=1", "http://127.0.0.1:50123/callback"])
        let signOut = BrowserPage(
            purpose: .signOut, endpoint: URL(string: "https://id.example.com/logout")!, parameters: [], registeredRedirectURI: "com.example.app:/cb")
        let signOutURL = try await signOut.url(redirectURI: "com.example.app:/cb").absoluteString
        #expect(signOutURL == "https://id.example.com/logout?post_logout_redirect_uri=com.example.app%3A%2Fcb")
        #expect(signOut.callbackScheme == "com.example.app")
    }

    @Test("a pushed page sends every parameter ahead and carries only client_id and the reference (RFC 9126)")
    func pushedPage() async throws {
        let received = PushedParameters()
        let page = BrowserPage(
            purpose: .signIn, endpoint: URL(string: "https://id.example.com/authorize")!,
            parameters: [("client_id", "app"), ("scope", "openid"), ("state", "st")], registeredRedirectURI: "http://127.0.0.1/callback",
            push: { parameters throws(GatehouseError) in
                await received.keep(parameters.map { "\($0.name)=\($0.value)" })
                return "urn:ietf:params:oauth:request_uri:abc"
            })
        let url = try await page.url(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(url.absoluteString == "https://id.example.com/authorize?client_id=app&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Aabc")
        #expect(await received.all == ["client_id=app", "scope=openid", "state=st", "redirect_uri=http://127.0.0.1:4000/callback"])
        // A refused push reaches the user agent as the SDK's error.
        let refusing = BrowserPage(
            purpose: .signIn, endpoint: URL(string: "https://id.example.com/authorize")!, parameters: [], registeredRedirectURI: "x:/cb",
            push: { _ throws(GatehouseError) in throw .provider(status: 400, error: "invalid_request", description: nil) })
        await #expect(throws: GatehouseError.provider(status: 400, error: "invalid_request", description: nil)) {
            _ = try await refusing.url(redirectURI: "x:/cb")
        }
    }

    @Test("form decoding reads + as a space, percent escapes, empty values, and drops broken pairs")
    func formDecoding() {
        let pairs = FormEncoding.decode("a=x+y&b=%C3%A9t%C3%A9&c=&d&=nameless&e=%ZZ&f=1%2B1")
        #expect(pairs.map(\.name) == ["a", "b", "c", "d", "f"])
        #expect(pairs.map(\.value) == ["x y", "été", "", "", "1+1"])
    }

    @Test("an answer is believed only with this request's state and this provider's iss")
    func answerChecks() throws {
        func code(_ query: String, metadata: OpenIDProviderMetadata = Self.metadata) throws(GatehouseError) -> String {
            try GatehouseClient.code(in: URL(string: "http://127.0.0.1:9/callback?" + query)!, state: "st", metadata: metadata)
        }
        let iss = "iss=https%3A%2F%2Fid.example.com"
        #expect(try code("code=c1&state=st&\(iss)") == "c1")
        #expect(throws: GatehouseError.browserRedirect(.stateMismatch)) { try code("code=c1&state=sT&\(iss)") }
        #expect(throws: GatehouseError.browserRedirect(.stateMismatch)) { try code("code=c1&\(iss)") }
        #expect(throws: GatehouseError.browserRedirect(.issuerMismatch(expected: "https://id.example.com", found: nil))) { try code("code=c1&state=st") }
        #expect(throws: GatehouseError.browserRedirect(.issuerMismatch(expected: "https://id.example.com", found: "https://id.example.com/"))) {
            try code("code=c1&state=st&iss=https%3A%2F%2Fid.example.com%2F")
        }
        #expect(throws: GatehouseError.browserRedirect(.refused(error: "consent_required", description: nil))) {
            try code("error=consent_required&state=st&\(iss)")
        }
        #expect(throws: GatehouseError.browserRedirect(.missingCode)) { try code("code=&state=st&\(iss)") }
        // A provider that does not promise iss (RFC 9207 §2.4) may leave it out; one that names it must name itself.
        var quiet = Self.metadata
        quiet.authorizationResponseIssParameterSupported = false
        #expect(try code("code=c2&state=st", metadata: quiet) == "c2")
        #expect(throws: GatehouseError.browserRedirect(.issuerMismatch(expected: "https://id.example.com", found: "https://other.example"))) {
            try code("code=c2&state=st&iss=https%3A%2F%2Fother.example", metadata: quiet)
        }
    }

    @Test("the loopback path comes from a registered loopback redirect URI, /callback otherwise")
    func loopbackPath() {
        #expect(LoopbackUserAgent.path(of: "http://127.0.0.1/callback") == "/callback")
        #expect(LoopbackUserAgent.path(of: "http://127.0.0.1/oauth/done") == "/oauth/done")
        #expect(LoopbackUserAgent.path(of: "http://[::1]:8000/cb") == "/cb")
        #expect(LoopbackUserAgent.path(of: "com.example.app:/cb") == "/callback")
        #expect(LoopbackUserAgent.path(of: "https://app.example.com/cb") == "/callback")
    }

    @Test("the listener answers other paths with 404, takes the first request to its path, then closes")
    func listener() async throws {
        let listener = try LoopbackRedirectListener()
        #expect(listener.redirectURI(path: "cb") == "http://127.0.0.1:\(listener.port)/cb")
        async let arrived = listener.wait(path: "/cb", timeout: 10, message: "Done <here>.")
        let base = "http://127.0.0.1:\(listener.port)"
        let (_, missing) = try await URLSession.shared.data(from: URL(string: base + "/favicon.ico")!)
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        let (page, found) = try await URLSession.shared.data(from: URL(string: base + "/cb?code=abc&state=x%20y")!)
        #expect((found as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains("<p>Done &lt;here&gt;.</p>"))
        #expect(try await arrived.absoluteString == base + "/cb?code=abc&state=x%20y")
        // Closed once answered: nothing listens on the port any more.
        await #expect(throws: (any Error).self) { _ = try await URLSession.shared.data(from: URL(string: base + "/cb")!) }
    }

    @Test("the page the browser lands on after a sign-in speaks the configuration's language, right to left in Arabic")
    func closingPageLanguage() async throws {
        let landed = LandedPage()
        let agent = LoopbackUserAgent(timeout: 10) { url in
            // The browser: straight back to the redirect URI the page names, as a provider would send it.
            let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let redirect = try #require(FormEncoding.decode(query).first { $0.name == "redirect_uri" }?.value)
            Task {
                let (body, _) = try await URLSession.shared.data(from: URL(string: redirect + "?code=c&state=s")!)
                await landed.keep(String(decoding: body, as: UTF8.self))
            }
        }
        for (languages, expected) in [(["ar-EG", "en"], ("ar", "rtl")), (["tlh", "de"], ("de", "ltr")), (["tlh"], ("en", "ltr"))] {
            let page = BrowserPage(
                purpose: .signIn, endpoint: URL(string: "https://id.example.com/authorize")!, parameters: [],
                registeredRedirectURI: "http://127.0.0.1/callback", preferredLanguages: languages)
            _ = try await agent.present(page)
            var html = ""
            for _ in 0..<200 where html.isEmpty {
                html = await landed.take()
                if html.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(html.contains(#"<html lang="\#(expected.0)" dir="\#(expected.1)">"#), "\(html)")
            #expect(html.contains(StringCatalog.text("browser.signed_in", languages: [expected.0])), "\(html)")
        }
        #expect(StringCatalog.text("browser.signed_in", languages: ["ar"]) != StringCatalog.text("browser.signed_in", languages: ["en"]))
    }

    @Test("the SDK's own advice on a step out of place is translated; a service's own words stay as they came")
    func adviceTranslated() {
        let own = DeviceAuthenticatorError.wrongState(StringCatalog.text("device.state.other_service", ["Acme"], languages: ["en"]))
        #expect(own.description == "That identity belongs to Acme, not to this service.")
        #expect(own.localizedDescription(in: ["fr"]) == "Cette identité appartient à Acme, pas à ce service.")
        #expect(DeviceAuthenticatorError.wrongState("Ask your administrator.").localizedDescription(in: ["fr"]) == "Ask your administrator.")
        #expect(StringCatalog.arguments(making: "a X b Y c", from: "a %@ b %@ c") == ["X", "Y"])
        #expect(StringCatalog.arguments(making: "a X b", from: "a %@ c") == nil)
    }
}

/// What the browser stand-in read on the page it landed on.
private actor LandedPage {
    var html = ""
    func keep(_ page: String) { html = page }
    func take() -> String {
        defer { html = "" }
        return html
    }
}

/// What a stand-in push endpoint received.
private actor PushedParameters {
    var all: [String] = []
    func keep(_ parameters: [String]) { all = parameters }
}
