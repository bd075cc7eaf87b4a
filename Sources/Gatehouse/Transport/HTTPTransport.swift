import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the SDK talks HTTP. `URLSession` by default; tests and apps with their own networking inject another.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and response, whatever the status code.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// The default transport, on a `URLSession`.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// A transport that sends requests with `session`.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return (data, http)
    }
}
