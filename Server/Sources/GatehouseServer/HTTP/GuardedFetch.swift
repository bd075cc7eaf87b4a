import AsyncHTTPClient
import Foundation
import GatehouseDomain
import GatehouseProtocol
import NIOCore
import NIOPosix

/// Fetches a URL that a stranger named (a client's metadata document, its key set), or posts to one (its back-channel
/// logout URI), without letting that stranger aim the server at itself: public addresses only (unless development allows others), the address checked being the one
/// connected to, no redirect followed, at most a size, within a time.
struct GuardedFetch: Sendable {
    /// For development only: loopback and private addresses too.
    let allowPrivateAddresses: Bool
    /// Seconds a fetch may take, connecting included.
    let timeout: Int64

    /// Why a fetch failed, in words for the person or client who named the URL.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The body at `url` (at most `limit` bytes) and how long it may be cached (`Cache-Control`'s `max-age`; `nil`
    /// when it says nothing).
    func get(_ url: String, limit: Int, what: String) async throws -> (body: Data, maxAge: Int64?) {
        try await withClient(for: url, what: what) { client in try await fetch(url, with: client, limit: limit, what: what) }
    }

    /// Posts `form` (`application/x-www-form-urlencoded`) to `url`; throws a ``Refusal`` unless the answer is 2xx.
    func post(_ url: String, form: [(String, String)], what: String) async throws {
        try await withClient(for: url, what: what) { client in
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form.map { FormEncoding.encode($0) + "=" + FormEncoding.encode($1) }.joined(separator: "&")))
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: .seconds(timeout))
                // Read (and drop) a little of the answer, so the connection closes cleanly.
                _ = try? await response.body.collect(upTo: 4096)
            } catch {
                throw Refusal(explain(error, what: what))
            }
            guard (200..<300).contains(response.status.code) else { throw Refusal("The \(what) answered \(response.status.code).") }
        }
    }

    /// Runs `body` with an HTTP client that connects only to the address `url`'s host was checked to have.
    private func withClient<Result>(for url: String, what: String, _ body: (HTTPClient) async throws -> Result) async throws -> Result {
        guard let components = URLComponents(string: url), let host = components.host else { throw Refusal("The \(what)'s URL is not a URL.") }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        // An IPv6 literal comes in brackets ([::1]); the resolver takes it bare.
        let address = try await Self.resolve(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
        guard allowPrivateAddresses || PublicAddress.contains(address) else {
            throw Refusal("\(host) is on a private, loopback or link-local address; the \(what) must come from the public internet.")
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(timeout), read: .seconds(timeout))
        // Connect to the address just checked, not to whatever the name resolves to a moment later (DNS rebinding); the
        // certificate is still checked against the name.
        if let ip = address.ipAddress { configuration.dnsOverride = [host: ip] }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func fetch(_ url: String, with client: HTTPClient, limit: Int, what: String) async throws -> (body: Data, maxAge: Int64?) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            // One deadline for the head and the body: a body trickled a byte at a time is cut off at the timeout too.
            (response, body) = try await OutboundHTTP.fetch(request, timeout: .seconds(timeout), upTo: limit, on: client)
        } catch is NIOTooManyBytesError {
            throw Refusal("The \(what) is larger than \(limit) bytes.")
        } catch {
            throw Refusal(explain(error, what: what))
        }
        switch response.status.code {
        case 200: break
        case 300..<400: throw Refusal("The \(what)'s URL answered with a redirect (\(response.status.code)); it must name the \(what) itself.")
        default: throw Refusal("The \(what)'s URL answered \(response.status.code).")
        }
        return (Data(buffer: body), Self.maxAge(response.headers["Cache-Control"].joined(separator: ",")))
    }

    /// `max-age` of a `Cache-Control` value; `0` for `no-store` or `no-cache`, `nil` when it says nothing.
    static func maxAge(_ cacheControl: String) -> Int64? {
        let directives = cacheControl.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-store") || directives.contains("no-cache") { return 0 }
        for directive in directives where directive.hasPrefix("max-age=") {
            return Int64(directive.dropFirst("max-age=".count)).map { max(0, $0) }
        }
        return nil
    }

    private func explain(_ error: any Error, what: String) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return "The \(what) did not arrive within \(timeout) seconds."
        }
        return "The \(what) could not be fetched: \(OutboundHTTP.describe(error))."
    }

    /// The first address `host` resolves to, resolved off the event loops.
    private static func resolve(_ host: String, port: Int) async throws -> SocketAddress {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
        } catch {
            throw Refusal("\(host) could not be resolved.")
        }
    }
}
