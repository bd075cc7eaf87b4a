import AsyncHTTPClient
import Foundation
import NIOCore

/// Requests to other identity providers: bounded in time (the provider's `timeout`) and size, and every failure a
/// ``FederationError`` that names the provider, never a thrown transport error reaching the person.
package struct UpstreamHTTP: Sendable {
    package let provider: IdentityProvider
    /// The largest answer read from a provider.
    package static let maximumBody = 1 << 20

    /// The JSON object at `url`, fetched with `request`'s method, headers and body.
    package func json(_ request: HTTPClientRequest, failure: (String) -> FederationError) async throws(FederationError) -> (status: Int, body: [String: Any]) {
        let (status, data) = try await send(request)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw failure("\(OutboundHTTP.printable(request.url)) answered HTTP \(status) with something other than a JSON object")
        }
        return (status, object)
    }

    /// The status and body of `request`.
    package func send(_ request: HTTPClientRequest) async throws(FederationError) -> (status: Int, body: Data) {
        var request = request
        request.headers.replaceOrAdd(name: "User-Agent", value: "Gatehouse")
        if !request.headers.contains(name: "Accept") { request.headers.add(name: "Accept", value: "application/json") }
        do {
            let (response, body) = try await OutboundHTTP.fetch(request, timeout: .seconds(Int64(provider.timeout)), upTo: Self.maximumBody)
            return (Int(response.status.code), Data(buffer: body))
        } catch {
            throw .unavailable(provider.name, "\(OutboundHTTP.printable(request.url)): \(OutboundHTTP.describe(error))")
        }
    }

    /// A GET of `url`, with `bearer` as its access token.
    package static func get(_ url: String, bearer: String? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return request
    }
}
