import Benchmark
import Crypto
import Foundation
import GatehouseServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A Gatehouse server with a fresh SQLite database and the production password hashing, answering requests
/// in process (HummingbirdTesting's router mode: the real router, middleware and stores, no sockets), with a
/// user, a public app (RS256 ID tokens), the same app with ES256 ID tokens and a confidential service client.
struct InProcessServer: Sendable {
    static let redirectURI = "dev.gatehouse.bench:/callback"
    static let username = "ann"
    static let password = "benchmark passphrase 2026"
    static let serviceAuthorization = "Basic " + Data("bench-service:bench-service-secret-0123456789abcdef".utf8).base64EncodedString()
    private static let verifier = String(repeating: "v", count: 64)

    let server: IdentityServer

    static func start() async throws -> InProcessServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.database = .sqlite(path: folder.appendingPathComponent("gatehouse.sqlite").path)
        configuration.secret = String(repeating: "b", count: 40)
        configuration.issuer = "http://127.0.0.1:8080"
        var logger = Logger(label: "gatehouse-benchmarks")
        logger.logLevel = .error
        let server = try await IdentityServer.start(configuration: configuration, logger: logger)
        let hasher = PasswordHasher(parameters: configuration.passwordHashing, maxConcurrentHashes: 1)
        _ = try await UserStore(database: server.database).create(
            username: username, email: "ann@example.com", name: "Ann", passwordHash: try await hasher.hash(password))
        try await hasher.shutdown()
        let clients = ClientStore(database: server.database)
        let scopes = ["openid", "profile", "email", "offline_access"]
        try await clients.create(id: "bench-app", secret: nil, redirectURIs: [redirectURI], scopes: scopes)
        try await clients.create(id: "bench-app-es256", secret: nil, redirectURIs: [redirectURI], scopes: scopes, idTokenAlgorithm: "ES256")
        try await clients.create(id: "bench-service", secret: "bench-service-secret-0123456789abcdef", redirectURIs: [redirectURI], scopes: ["reports"])
        return InProcessServer(server: server)
    }

    /// Runs `body` with a client that sends requests straight to the router.
    func withClient<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: GatehouseApplication.makeRouter(server: server)).test(.router, body)
    }

    /// Starts a native sign-in flow; returns its id.
    static func startFlow(_ client: any TestClientProtocol, clientID: String = "bench-app") async throws -> String {
        let answer = try await json(
            client, "/flows/login",
            [
                "client_id": clientID, "redirect_uri": redirectURI, "scope": "openid profile email offline_access", "state": "s", "nonce": "n",
                "code_challenge": codeChallenge, "code_challenge_method": "S256",
            ])
        guard let flowID = answer["flow_id"] as? String else { throw BenchmarkSetupError("no flow_id in \(answer)") }
        return flowID
    }

    /// Submits the password to a started flow; returns the authorization code.
    static func submitPassword(_ client: any TestClientProtocol, flowID: String, clientID: String = "bench-app") async throws -> String {
        let answer = try await json(
            client, "/flows/\(flowID)",
            [
                "client_id": clientID, "action": "submit", "values": ["username": username, "password": password],
            ])
        guard let authorization = answer["authorization"] as? [String: Any], let code = authorization["code"] as? String else {
            throw BenchmarkSetupError("the sign-in did not succeed: \(answer)")
        }
        return code
    }

    /// A whole sign-in; returns the token response.
    static func signIn(_ client: any TestClientProtocol, clientID: String = "bench-app") async throws -> [String: Any] {
        let code = try await submitPassword(client, flowID: try await startFlow(client, clientID: clientID), clientID: clientID)
        return try await form(
            client, "/token",
            [
                "grant_type": "authorization_code", "code": code, "client_id": clientID, "redirect_uri": redirectURI, "code_verifier": verifier,
            ])
    }

    /// One refresh-token grant; returns the rotated refresh token.
    static func refresh(_ client: any TestClientProtocol, token: String, clientID: String) async throws -> String {
        let answer = try await form(client, "/token", ["grant_type": "refresh_token", "refresh_token": token, "client_id": clientID])
        guard let next = answer["refresh_token"] as? String else { throw BenchmarkSetupError("no refresh_token in \(answer)") }
        return next
    }

    static func get(_ client: any TestClientProtocol, _ path: String, headers: HTTPFields = [:]) async throws -> ByteBuffer {
        let response = try await client.executeRequest(uri: path, method: .get, headers: headers, body: nil)
        guard response.status == .ok else { throw BenchmarkSetupError("\(path) answered \(response.status)") }
        return response.body
    }

    static func form(_ client: any TestClientProtocol, _ path: String, _ fields: [String: String], headers: HTTPFields = [:]) async throws -> [String: Any] {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await decode(path, client.executeRequest(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)))
    }

    private static func json(_ client: any TestClientProtocol, _ path: String, _ object: [String: Any]) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: object)
        return try await decode(
            path,
            client.executeRequest(
                uri: path, method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: body)))
    }

    private static func decode(_ path: String, _ response: TestResponse) throws -> [String: Any] {
        guard response.status == .ok, let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] else {
            throw BenchmarkSetupError("\(path) answered \(response.status): \(String(buffer: response.body))")
        }
        return object
    }

    /// The S256 challenge of `verifier` (RFC 7636 §4.2), computed once.
    private static let codeChallenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// The benchmark handle, carried into HummingbirdTesting's `@Sendable` test closure; that closure runs once,
/// on the benchmark's own task, so the handle is never used from two places at a time.
struct BenchmarkHandle: @unchecked Sendable {
    let benchmark: Benchmark
}

/// The benchmark's own setup went wrong (the server refused a step the benchmark depends on).
struct BenchmarkSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
