import Benchmark
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers

/// Whole requests through the server's router, middleware and SQLite stores, in process: what each endpoint
/// costs without sockets, HTTP parsing or a load generator sharing the cores. Each sample is one request,
/// measured inside an open test client.
enum RequestBenchmarks {
    /// A signed-in user's tokens for each app, made once per benchmark; the refresh tokens move on as they rotate.
    final class SignedIn: Sendable {
        let server: InProcessServer
        let accessToken: String
        let refreshTokens: NIOLockedValueBox<[String: String]>

        init(server: InProcessServer, accessToken: String, refreshTokens: [String: String]) {
            self.server = server
            self.accessToken = accessToken
            self.refreshTokens = NIOLockedValueBox(refreshTokens)
        }

        static func make() async throws -> SignedIn {
            let server = try await InProcessServer.start()
            return try await server.withClient { client in
                let rs256 = try await InProcessServer.signIn(client, clientID: "bench-app")
                let es256 = try await InProcessServer.signIn(client, clientID: "bench-app-es256")
                return SignedIn(
                    server: server, accessToken: rs256["access_token"] as? String ?? "",
                    refreshTokens: [
                        "bench-app": rs256["refresh_token"] as? String ?? "",
                        "bench-app-es256": es256["refresh_token"] as? String ?? "",
                    ])
            }
        }
    }

    static var configuration: Benchmark.Configuration { .init(maxDuration: .seconds(3), maxIterations: 2_000) }

    static func register() {
        request("discovery") { client, _ in blackHole(try await InProcessServer.get(client, "/.well-known/openid-configuration")) }
        request("JWKS") { client, _ in blackHole(try await InProcessServer.get(client, "/jwks")) }
        request("userinfo") { client, signedIn in
            blackHole(try await InProcessServer.get(client, "/userinfo", headers: [.authorization: "Bearer \(signedIn.accessToken)"]))
        }
        request("token: client credentials") { client, _ in
            blackHole(
                try await InProcessServer.form(
                    client, "/token", ["grant_type": "client_credentials"],
                    headers: [.authorization: InProcessServer.serviceAuthorization]))
        }
        for (name, clientID) in [("RS256", "bench-app"), ("ES256", "bench-app-es256")] {
            request("token: refresh with rotation, \(name) ID token") { client, signedIn in
                let token = signedIn.refreshTokens.withLockedValue { $0[clientID] ?? "" }
                let next = try await InProcessServer.refresh(client, token: token, clientID: clientID)
                signedIn.refreshTokens.withLockedValue { $0[clientID] = next }
            }
        }
        request("flow step: start a sign-in") { client, _ in blackHole(try await InProcessServer.startFlow(client)) }
        Benchmark("request: flow step: submit the password (one hash)", configuration: .init(maxDuration: .seconds(5), maxIterations: 30)) {
            benchmark, server in
            let handle = BenchmarkHandle(benchmark: benchmark)
            try await server.withClient { client in
                let benchmark = handle.benchmark
                var flows: [String] = []
                for _ in benchmark.scaledIterations { flows.append(try await InProcessServer.startFlow(client)) }
                benchmark.startMeasurement()
                for flow in flows { blackHole(try await InProcessServer.submitPassword(client, flowID: flow)) }
                benchmark.stopMeasurement()
            }
        } setup: {
            try await InProcessServer.start()
        }
    }

    /// A benchmark of one request, repeated.
    private static func request(_ name: String, _ body: @escaping @Sendable (any TestClientProtocol, SignedIn) async throws -> Void) {
        Benchmark("request: \(name)", configuration: configuration) { benchmark, signedIn in
            let handle = BenchmarkHandle(benchmark: benchmark)
            try await signedIn.server.withClient { client in
                let benchmark = handle.benchmark
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { try await body(client, signedIn) }
                benchmark.stopMeasurement()
            }
        } setup: {
            try await SignedIn.make()
        }
    }
}
