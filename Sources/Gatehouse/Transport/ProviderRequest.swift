import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests to the provider, sent through the configured transport, with every failure turned into a
/// ``GatehouseError`` the app can act on.
struct ProviderRequest: Sendable {
    let configuration: GatehouseConfiguration

    /// A request to `endpoint` that accepts JSON.
    func make(_ endpoint: String) throws(GatehouseError) -> URLRequest {
        guard let url = URL(string: endpoint) else { throw .unexpectedResponse(status: 0) }
        var request = URLRequest(url: url, timeoutInterval: configuration.timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }

    /// Sends `request`; a transport failure becomes ``GatehouseError/network(_:)`` (or ``GatehouseError/cancelled``).
    func send(_ request: URLRequest) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        do {
            return try await configuration.providerTransport.send(request)
        } catch let error as GatehouseError {
            throw error
        } catch {
            configuration.logger.debug("Request to the provider failed", metadata: ["url": "\(request.url?.absoluteString ?? "")", "error": "\(error)"])
            throw Self.failure(error)
        }
    }

    /// POSTs `body` as JSON to `endpoint`.
    func postJSON(_ endpoint: String, _ body: some Encodable) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        var request = try make(endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(body)
        } catch {
            throw .unexpectedResponse(status: 0)
        }
        return try await send(request)
    }

    /// What a transport error means to the app: ``GatehouseError/cancelled`` when the request was cancelled (the app
    /// cancelled the waiting task; URLSession says so as URL error -999), else ``GatehouseError/network(_:)``.
    static func failure(_ error: any Error) -> GatehouseError {
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError, error.code == .cancelled { return .cancelled }
        return .network(cause(of: error))
    }

    /// A short, secret-free reason for a transport error.
    static func cause(of error: any Error) -> ErrorCause {
        ErrorCause(summary(of: error), underlyingError: error)
    }

    private static func summary(of error: any Error) -> String {
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .cannotFindHost, .dnsLookupFailed: return "unknown host"
            case .notConnectedToInternet, .networkConnectionLost: return "no connection"
            case .secureConnectionFailed, .serverCertificateUntrusted: return "TLS failed"
            default: return "URL error \(error.code.rawValue)"
            }
        }
        return String(describing: type(of: error))
    }
}
