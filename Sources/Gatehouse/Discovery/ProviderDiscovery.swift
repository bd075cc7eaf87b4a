import Foundation
@_exported import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a Gatehouse (or any OpenID Connect) provider's metadata from its discovery document.
public struct ProviderDiscovery: Sendable {
    /// The issuer, e.g. `https://id.example.com`.
    public let issuer: URL
    /// Where the metadata is read.
    public let documentURL: URL
    private let transport: any HTTPTransport

    /// Discovery for `issuer`, reading its document from `documentURL` (by default the standard location).
    public init(issuer: URL, documentURL: URL? = nil, transport: any HTTPTransport = URLSessionTransport()) {
        self.issuer = issuer
        self.documentURL = documentURL ?? Self.documentURL(for: issuer)
        self.transport = transport
    }

    /// The standard address of an issuer's discovery document: the issuer followed by
    /// `/.well-known/openid-configuration`.
    public static func documentURL(for issuer: URL) -> URL {
        issuer.appendingPathComponent(".well-known/openid-configuration")
    }

    /// Fetches and checks the metadata. The `issuer` it names must equal the configured issuer exactly,
    /// as OpenID Connect Discovery §4.3 requires, or a provider could impersonate another.
    public func metadata() async throws -> OpenIDProviderMetadata {
        let (data, response) = try await transport.send(URLRequest(url: documentURL))
        guard response.statusCode == 200 else {
            throw DiscoveryError.unexpectedStatus(response.statusCode)
        }
        let metadata: OpenIDProviderMetadata
        do {
            metadata = try JSONDecoder().decode(OpenIDProviderMetadata.self, from: data)
        } catch {
            throw DiscoveryError.malformedDocument("\(error)")
        }
        let expected = issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        guard metadata.issuer == expected else {
            throw DiscoveryError.issuerMismatch(expected: expected, found: metadata.issuer)
        }
        return metadata
    }
}

/// Why discovery failed.
public enum DiscoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered with another status than 200; check the issuer URL.
    case unexpectedStatus(Int)
    /// The document is not valid provider metadata.
    case malformedDocument(String)
    /// The document names another issuer than the one configured; the URL is wrong or the server is misconfigured.
    case issuerMismatch(expected: String, found: String)

    /// What went wrong and what to check, in English: for logs.
    public var description: String { localizedDescription(in: ["en"]) }

    /// What went wrong and what to check, in the first of `languages` the SDK speaks, else English.
    public func localizedDescription(in languages: [String]) -> String {
        func say(_ key: String, _ arguments: String...) -> String { StringCatalog.text(key, arguments, languages: languages) }
        return switch self {
        case .unexpectedStatus(let status): say("discovery.unexpected_status", "\(status)")
        case .malformedDocument(let reason): say("discovery.malformed", reason)
        case .issuerMismatch(let expected, let found): say("discovery.issuer_mismatch", found, expected)
        }
    }
}
