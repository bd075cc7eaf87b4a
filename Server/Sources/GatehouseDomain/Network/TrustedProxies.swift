import Foundation
import GatehouseFoundation
import HTTPTypes
import NIOCore

/// The reverse proxies in front of the server (`trusted_proxies` in the configuration file). Behind a proxy every
/// connection comes from the proxy, so per-address limits would count all clients as one; a request whose peer is
/// a trusted proxy is counted by the client address the proxy reports in ``header`` instead.
///
/// Only the proxies listed here are believed: a client that writes the header itself is counted by its own address,
/// and the header's entries are read from the nearest hop outwards, stopping at the first address not listed.
public struct TrustedProxies: Sendable, Codable, Equatable {
    /// The header the proxies write. Name only the one they set: a header they pass through unchanged is the client's to forge.
    public enum Header: String, Sendable, Codable, Equatable {
        /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, HAProxy, Caddy, Traefik, most load balancers).
        case xForwardedFor = "x-forwarded-for"
        /// `Forwarded: for=client, for=proxy1` (RFC 7239).
        case forwarded
    }

    /// The proxies' addresses or networks; empty (the default) trusts no one and counts every connection by its peer.
    public var addresses: [IPNetwork] = []
    /// The header the proxies write the client's address in; `X-Forwarded-For` unless they use RFC 7239's `Forwarded`.
    public var header: Header = .xForwardedFor

    /// No trusted proxies.
    public init() {}

    /// The proxies at `addresses`, which report clients in `header`.
    public init(addresses: [IPNetwork], header: Header = .xForwardedFor) {
        self.addresses = addresses
        self.header = header
    }

    /// Whether `address` is one of the trusted proxies.
    package func trusts(_ address: SocketAddress) -> Bool {
        addresses.contains { $0.contains(address) }
    }

    /// The client a request with `headers` arriving from `peer` comes from: `peer` itself unless it is a trusted
    /// proxy; then the header is read from the nearest hop outwards, as long as each hop is a trusted proxy. An
    /// address a client wrote itself sits beyond the client's own, untrusted, address and is never reached.
    package func client(behind peer: SocketAddress, headers: HTTPFields) -> SocketAddress {
        var current = peer
        for hop in header.hops(in: headers).reversed() {
            guard trusts(current), let address = try? SocketAddress(ipAddress: hop, port: 0) else { break }
            current = address
        }
        return current
    }

    package func validate() throws {
        if let everyone = addresses.first(where: { $0.prefixLength == 0 }) {
            throw ConfigurationError(
                key: "trusted_proxies.addresses", "lists \(everyone), which would let every client choose the address it is counted by; list only your proxies."
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let texts = try container.decodeIfPresent([String].self, forKey: .addresses) ?? []
        addresses = try texts.map { text in
            guard let network = IPNetwork(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .addresses, in: container,
                    debugDescription: "\"\(text)\" is not an IP address or network such as 10.0.0.0/8 or 2001:db8::/32")
            }
            return network
        }
        header = try container.decodeIfPresent(Header.self, forKey: .header) ?? .xForwardedFor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(addresses.map(\.description), forKey: .addresses)
        try container.encode(header, forKey: .header)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case addresses, header
    }
}

extension TrustedProxies.Header {
    /// The addresses the proxies reported in `headers`, the client first and the nearest proxy last, as written:
    /// `for=` values of `Forwarded` lose their quotes, brackets and ports; anything else (`unknown`, `_hidden`, an
    /// element without `for=`) stays a hop that will not parse as an address, so reading stops there.
    package func hops(in headers: HTTPFields) -> [String] {
        switch self {
        case .xForwardedFor:
            return headers[values: HTTPField.Name("X-Forwarded-For")!].flatMap { $0.split(separator: ",") }.map { Self.bare($0) }
        case .forwarded:
            return headers[values: HTTPField.Name("Forwarded")!].flatMap { $0.split(separator: ",") }.map { element in
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" { return Self.bare(parts[1]) }
                }
                return ""
            }
        }
    }

    /// `"[2001:db8::1]:4711"` → `2001:db8::1`, `198.51.100.7:8080` → `198.51.100.7`.
    private static func bare(_ value: Substring) -> String {
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<end]) }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}
