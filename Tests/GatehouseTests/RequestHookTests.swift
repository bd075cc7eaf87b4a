import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every request to the provider asks for the app's languages and passes the app's request hook, whatever the
/// transport underneath.
@Suite("Request hook and languages (mock transport)")
struct RequestHookTests {
    /// Records what reached the transport, then lets the mock provider answer.
    actor Recorder: HTTPTransport {
        let provider: MockProvider
        private(set) var headers: [[String: String]] = []

        init(provider: MockProvider) { self.provider = provider }

        nonisolated func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            await record(request.allHTTPHeaderFields ?? [:])
            return try await provider.send(request)
        }

        private func record(_ fields: [String: String]) { headers.append(fields) }
    }

    /// Adds a header and keeps what it saw.
    actor Hook: RequestHook {
        private(set) var answered: [(path: String, status: Int)] = []
        private(set) var failed: [String] = []

        nonisolated func willSend(_ request: inout URLRequest) async {
            request.setValue("app-7", forHTTPHeaderField: "X-App-Build")
        }

        func didReceive(_ response: HTTPURLResponse, body: Data, for request: URLRequest) async {
            answered.append((request.url?.path ?? "", response.statusCode))
        }

        func didFail(_ error: any Error, for request: URLRequest) async {
            failed.append(request.url?.path ?? "")
        }
    }

    static func client(_ transport: any HTTPTransport, languages: [String], hook: (any RequestHook)?) -> GatehouseClient {
        GatehouseClient(
            configuration: GatehouseConfiguration(
                issuer: URL(string: MockProvider.issuer)!, clientID: "app", redirectURI: "com.example.app:/cb", transport: transport,
                preferredLanguages: languages, requestHook: hook))
    }

    @Test("requests carry Accept-Language in preference order and the hook's header; the hook sees every answer")
    func languagesAndHook() async throws {
        let provider = MockProvider(firstNode: FlowTests.credentials)
        let recorder = Recorder(provider: provider)
        let hook = Hook()
        guard case .continue = await Self.client(recorder, languages: ["de-CH", "de", "en"], hook: hook).start() else {
            Issue.record("expected a continue node")
            return
        }
        let headers = await recorder.headers
        #expect(headers.count >= 2, "discovery and the flow's start")
        for fields in headers {
            #expect(fields["Accept-Language"] == "de-CH, de;q=0.9, en;q=0.8")
            #expect(fields["X-App-Build"] == "app-7")
        }
        let answered = await hook.answered
        #expect(answered.map(\.path) == (await provider.requests))
        #expect(answered.allSatisfy { $0.status == 200 })
        #expect(await hook.failed.isEmpty)
    }

    @Test("a request without an answer reaches the hook as a failure, and the app gets the network error")
    func failures() async throws {
        let provider = MockProvider(firstNode: FlowTests.credentials)
        await provider.setFailNetwork(true)
        let hook = Hook()
        guard case .failure(let failure) = await Self.client(provider, languages: [], hook: hook).start() else {
            Issue.record("expected a failure")
            return
        }
        guard case .network = failure.cause else {
            Issue.record("expected a network error, got \(failure.cause)")
            return
        }
        #expect(await hook.failed == ["/.well-known/openid-configuration"])
        #expect(await hook.answered.isEmpty)
    }

    @Test("Accept-Language: weights fall by a tenth, at most ten tags, malformed tags left out, none without languages")
    func acceptLanguageValue() {
        #expect(ProviderTransport.acceptLanguage(["fr"]) == "fr")
        #expect(ProviderTransport.acceptLanguage([]) == nil)
        #expect(ProviderTransport.acceptLanguage(["en-US", "bad tag\r\n", "fr"]) == "en-US, fr;q=0.9")
        let many = (0..<12).map { "l\($0)" }
        #expect(ProviderTransport.acceptLanguage(many) == "l0, l1;q=0.9, l2;q=0.8, l3;q=0.7, l4;q=0.6, l5;q=0.5, l6;q=0.4, l7;q=0.3, l8;q=0.2, l9;q=0.1")
    }
}
