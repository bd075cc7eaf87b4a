import AsyncHTTPClient
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird
import JWTKit
import NIOConcurrencyHelpers
import NIOCore

/// A small relying party served at `/demo` by `gatehouse serve --demo`.
///
/// It behaves like any confidential web client: it redirects to the authorization endpoint with state,
/// nonce and PKCE, and on return exchanges the code over HTTP, verifies the ID token with the published
/// JWKS, calls userinfo, and shows what it got. Its transaction state lives in a sealed cookie.
public final class DemoRelyingParty: Sendable {
    public static let clientID = "gatehouse-demo"
    /// The same demo as a third-party application: it asks the person's consent before it gets anything.
    public static let partnerClientID = "gatehouse-demo-partner"
    /// The public client `gatehouse login` uses by default.
    public static let cliClientID = "gatehouse-cli"

    /// The demo shows the whole sign-in story unless the configuration says otherwise: self-registration with a
    /// confirmed email (and optional phone), codes in the development outbox, the terminal client requiring a
    /// second factor (so the first `gatehouse login` proves the email, then enrolls TOTP), and every client then
    /// asking users who enrolled one. Codes by email or SMS are offered wherever a second factor is asked.
    public static func applyDefaults(to configuration: inout ServerConfiguration) {
        var everyFactor = SignOnPolicy(secondFactor: .ifEnrolled)
        everyFactor.factors = [.totp, .email, .sms]
        everyFactor.appLogin = true
        if configuration.signOn == SignOnPolicy() { configuration.signOn = everyFactor }
        if configuration.clientSignOn[cliClientID] == nil {
            everyFactor.secondFactor = .required
            configuration.clientSignOn[cliClientID] = everyFactor
        }
        if configuration.registration == RegistrationPolicy() {
            configuration.registration = RegistrationPolicy(enabled: true, verifyEmail: true, collectPhone: true)
        }
    }
    public static let cliRedirectURI = "dev.gatehouse.cli:/callback"
    /// Where `gatehouse login --identity-provider` receives the browser's answer (any port, RFC 8252 §7.3).
    public static let cliLoopbackRedirectURI = "http://127.0.0.1/callback"
    public static let username = "demo"
    public static let scope = "openid profile email offline_access"

    /// The identity server's issuer, which the demo signs in with.
    let issuer: String
    let cookies: CookieSettings
    let clock: UnixClock
    /// Where the server listens, for the demo's own calls to the token endpoint.
    let host: String
    let port: Int
    let clientSecret: String
    /// The third-party demo client's secret.
    let partnerSecret: String
    private let box: SecretBox
    private let boundPort = NIOLockedValueBox<Int?>(nil)

    /// The demo user's password.
    public let password: String

    var redirectURI: String { url("/demo/callback") }
    var homeURI: String { url("/demo") }

    /// An absolute URL on the identity server.
    func url(_ path: String) -> String { issuer + path }

    /// Creates (or refreshes) the demo client and the demo user.
    ///
    /// The demo password is derived from the server secret, so every node sharing a database and a secret
    /// prints the same one. The client keeps the redirect URIs other nodes registered, so each node's demo works.
    static func prepare(
        clients: ClientStore, users: UserStore, hasher: PasswordHasher, secret serverSecret: ServerSecret, issuer: String, cookies: CookieSettings,
        clock: UnixClock, host: String, port: Int
    ) async throws -> DemoRelyingParty {
        let box = SecretBox(serverSecret: serverSecret.bytes, purpose: "demo relying party v1")
        let secret = box.derivedToken("demo client secret")
        let partnerSecret = box.derivedToken("demo partner client secret")
        let demo = DemoRelyingParty(
            issuer: issuer, cookies: cookies, clock: clock, host: host, port: port, clientSecret: secret, partnerSecret: partnerSecret, box: box,
            password: Self.readablePassword(from: box))
        let existing = try await clients.find(id: clientID)
        func merged(_ uri: String, _ earlier: [String]?) -> [String] {
            let known = earlier ?? []
            return known.contains(uri) ? known : known + [uri]
        }
        try await clients.upsert(
            Client(
                id: clientID, name: "Gatehouse demo", secretHash: TokenDigest.hex(secret),
                redirectURIs: merged(demo.redirectURI, existing?.redirectURIs),
                postLogoutRedirectURIs: merged(demo.homeURI, existing?.postLogoutRedirectURIs),
                scopes: ClientRegistrationRules.defaultScopes, idTokenAlgorithm: "RS256", createdAt: existing?.createdAt ?? clock.now()
            ))
        let partner = try await clients.find(id: partnerClientID)
        try await clients.upsert(
            Client(
                id: partnerClientID, name: "Partner App (demo)", secretHash: TokenDigest.hex(partnerSecret),
                redirectURIs: merged(demo.redirectURI, partner?.redirectURIs), postLogoutRedirectURIs: merged(demo.homeURI, partner?.postLogoutRedirectURIs),
                scopes: ClientRegistrationRules.defaultScopes, idTokenAlgorithm: "RS256", createdAt: partner?.createdAt ?? clock.now(),
                isThirdParty: true, homepage: demo.homeURI
            ))
        // The terminal client (`gatehouse login`) is a public client: PKCE instead of a secret.
        let cli = try await clients.find(id: cliClientID)
        try await clients.upsert(
            Client(
                id: cliClientID, name: "Gatehouse command line", secretHash: nil, redirectURIs: [cliRedirectURI, cliLoopbackRedirectURI],
                postLogoutRedirectURIs: [cliLoopbackRedirectURI],
                scopes: ClientRegistrationRules.defaultScopes + ["account"], idTokenAlgorithm: "RS256", createdAt: cli?.createdAt ?? clock.now(),
                allowsDeviceGrant: true
            ))
        let user = try await users.find(username: username)
        if let user, try await hasher.verify(demo.password, against: user.passwordHash) {
            _ = try await users.setLocked(username: username, false)
        } else if let user {
            try await users.updatePasswordHash(userID: user.id, to: try await hasher.hash(demo.password))
            _ = try await users.setLocked(username: username, false)
        } else {
            do {
                try await users.create(
                    username: username, email: "demo@example.com", name: "Demo User",
                    passwordHash: try await hasher.hash(demo.password))
            } catch let error as DatabaseError where error.isDuplicate {
                // Another node created it a moment ago, with the same derived password.
            }
        }
        return demo
    }

    /// Twelve characters from an unambiguous alphabet, in three groups: about 59 bits from the secret.
    static func readablePassword(from box: SecretBox) -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        let characters = box.derivedBytes("demo password").prefix(12).map { alphabet[Int($0) % alphabet.count] }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    private init(
        issuer: String, cookies: CookieSettings, clock: UnixClock, host: String, port: Int, clientSecret: String, partnerSecret: String,
        box: SecretBox, password: String
    ) {
        self.issuer = issuer
        self.cookies = cookies
        self.clock = clock
        self.host = host
        self.port = port
        self.box = box
        self.clientSecret = clientSecret
        self.partnerSecret = partnerSecret
        self.password = password
    }

    /// Tells the demo where the server listens, so it can call the token endpoint over loopback.
    public func serverIsRunning(onPort port: Int) {
        boundPort.withLockedValue { $0 = port }
    }

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/demo") { _, _ in self.home() }
        router.get("/demo/login") { request, _ in
            // `?as=partner`: the same demo as a third-party application, which asks for consent.
            try self.startSignIn(asPartner: FormParameters(encoded: request.uri.query ?? "")["as"] == "partner")
        }
        router.get("/demo/callback") { request, _ in await self.callback(request) }
    }

    private func home() -> Response {
        PageRenderer.page(title: "Demo application", template: "demo-home", ["username": Self.username])
    }

    private struct Transaction: Codable {
        var state: String
        var nonce: String
        var verifier: String
        /// The client signing in: the demo, or its third-party twin.
        var clientID: String
    }

    private func startSignIn(asPartner: Bool) throws -> Response {
        let transaction = Transaction(
            state: SecureRandom.token(byteCount: 16), nonce: SecureRandom.token(byteCount: 16), verifier: PKCE.makeVerifier(),
            clientID: asPartner ? Self.partnerClientID : Self.clientID)
        let sealed = try box.seal(try JSONEncoder().encode(transaction))
        let location = Redirect.url(
            url("/authorize"),
            adding: [
                ("response_type", "code"), ("client_id", transaction.clientID), ("redirect_uri", redirectURI), ("scope", Self.scope),
                ("state", transaction.state), ("nonce", transaction.nonce),
                ("code_challenge", PKCE.challenge(for: transaction.verifier)), ("code_challenge_method", PKCE.method),
            ])
        var response = Redirect.to(location)
        response.headers.append(cookies.setCookie(cookies.demoName, FormEncoding.encode(sealed), maxAge: 900))
        return response
    }

    private func callback(_ request: Request) async -> Response {
        let parameters = FormParameters(encoded: request.uri.query ?? "")
        do {
            guard let cookie = cookies.value(cookies.demoName, in: request)?.removingPercentEncoding,
                let transaction = try? JSONDecoder().decode(Transaction.self, from: try box.open(cookie))
            else { throw DemoError("The demo's sign-in state is missing; start again.") }
            guard let state = parameters["state"], ConstantTime.equals(state, transaction.state) else {
                throw DemoError("The state does not match this browser's sign-in; start again.")
            }
            guard parameters["iss"] == issuer else { throw DemoError("The response came from an unexpected issuer.") }
            if let error = parameters["error"] {
                throw DemoError("Sign-in failed: \(error) — \(parameters["error_description"] ?? "")")
            }
            guard let code = parameters["code"] else { throw DemoError("The response carries no code.") }
            let tokens = try await exchange(code: code, verifier: transaction.verifier, clientID: transaction.clientID)
            guard let idToken = tokens.idToken else { throw DemoError("The token response has no ID token.") }
            let claims = try await verify(idToken: idToken, nonce: transaction.nonce, clientID: transaction.clientID)
            let userinfo = try await call("/userinfo", bearer: tokens.accessToken)
            var response = results(claims: claims, userinfo: userinfo, idToken: idToken, refreshed: tokens.refreshToken != nil)
            response.headers.append(cookies.clearCookie(cookies.demoName))
            return response
        } catch let error as DemoError {
            return PageRenderer.error(title: "Demo sign-in failed", message: error.message)
        } catch {
            return PageRenderer.error(title: "Demo sign-in failed", message: "\(error)", status: .badGateway)
        }
    }

    private var loopbackBase: String {
        let port = boundPort.withLockedValue { $0 } ?? port
        let loopback = host == "0.0.0.0" ? "127.0.0.1" : (host == "::" ? "::1" : host)
        return loopback.contains(":") ? "http://[\(loopback)]:\(port)" : "http://\(loopback):\(port)"
    }

    private func exchange(code: String, verifier: String, clientID: String) async throws -> TokenResponse {
        var request = HTTPClientRequest(url: loopbackBase + "/token")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let secret = clientID == Self.partnerClientID ? partnerSecret : clientSecret
        let basic = Data("\(FormEncoding.encode(clientID)):\(FormEncoding.encode(secret))".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(basic)")
        let body = FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", verifier),
        ])
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await OutboundHTTP.execute(request, timeout: .seconds(10))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        guard response.status == .ok else {
            let error = try? JSONDecoder().decode(OAuthErrorResponse.self, from: data)
            throw DemoError("The token endpoint refused the code: \(error?.error ?? "HTTP \(response.status.code)") — \(error?.errorDescription ?? "")")
        }
        return try JSONDecoder().decode(TokenResponse.self, from: data)
    }

    private func call(_ path: String, bearer: String? = nil) async throws -> String {
        var request = HTTPClientRequest(url: loopbackBase + path)
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response = try await OutboundHTTP.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        guard response.status == .ok else { throw DemoError("\(path) answered HTTP \(response.status.code).") }
        return text
    }

    /// Verifies the ID token as a relying party must: signature from the JWKS, issuer, audience, expiry, nonce.
    private func verify(idToken: String, nonce: String, clientID: String) async throws -> IDTokenClaims {
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: try await call("/jwks"))
        let claims = try await keys.verify(idToken, as: IDTokenClaims.self)
        let now = clock.now()
        guard claims.iss == issuer else { throw DemoError("The ID token's issuer is wrong.") }
        guard claims.aud == clientID else { throw DemoError("The ID token is not meant for the demo.") }
        guard claims.exp > now else { throw DemoError("The ID token has expired.") }
        guard claims.nonce == nonce else { throw DemoError("The ID token's nonce does not match.") }
        return claims
    }

    private func results(claims: IDTokenClaims, userinfo: String, idToken: String, refreshed: Bool) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let claimsJSON = (try? encoder.encode(claims)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let prettyUserinfo =
            (try? JSONSerialization.jsonObject(with: Data(userinfo.utf8)))
            .flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) }
            .map { String(decoding: $0, as: UTF8.self) } ?? userinfo
        let logout = Redirect.url(
            url("/logout"),
            adding: [
                ("id_token_hint", idToken), ("post_logout_redirect_uri", homeURI), ("state", SecureRandom.token(byteCount: 8)),
            ])
        return PageRenderer.page(
            title: "Signed in", template: "demo-signed-in",
            [
                "name": claims.preferredUsername ?? claims.sub, "refreshed": refreshed, "claims": claimsJSON, "userinfo": prettyUserinfo,
                "logout": logout,
            ])
    }
}

struct DemoError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
