import Foundation

/// The versioned form tokens are stored in. Every format ever written stays readable, so an app update
/// never signs anyone out; a format newer than this SDK reads as "no tokens" rather than an error.
enum StoredTokenFormat {
    static let current = 1

    private struct Envelope: Codable {
        var format: Int
        var tokens: TokenSet
    }

    private struct FormatOnly: Decodable {
        var format: Int
    }

    static func encode(_ tokens: TokenSet) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(Envelope(format: current, tokens: tokens))
    }

    /// The stored tokens, or `nil` when the data was written by a newer SDK.
    static func decode(_ data: Data) throws -> TokenSet? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let format = try decoder.decode(FormatOnly.self, from: data).format
        switch format {
        case 1:
            return try decoder.decode(Envelope.self, from: data).tokens
        default:
            return nil
        }
    }
}
