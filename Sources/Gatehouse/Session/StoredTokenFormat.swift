import Foundation

/// The versioned form tokens are stored in. Every format ever written stays readable, so an app update
/// never signs anyone out; a format newer than this SDK reads as "no tokens" rather than an error.
///
/// Format 1 held the tokens; format 2 adds the DPoP key they are bound to, when they are.
enum StoredTokenFormat {
    static let current = 2

    /// What a session keeps.
    struct Stored: Equatable {
        var tokens: TokenSet
        /// ``DPoPKey/storedRepresentation`` of the key the tokens are bound to.
        var dpopKey: Data?
    }

    private struct Envelope: Codable {
        var format: Int
        var tokens: TokenSet
        var dpopKey: Data?

        enum CodingKeys: String, CodingKey {
            case format, tokens
            case dpopKey = "dpop_key"
        }
    }

    private struct FormatOnly: Decodable {
        var format: Int
    }

    static func encode(_ tokens: TokenSet, dpopKey: Data? = nil) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(Envelope(format: current, tokens: tokens, dpopKey: dpopKey))
    }

    /// The stored session, or `nil` when the data was written by a newer SDK.
    static func decode(_ data: Data) throws -> Stored? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let format = try decoder.decode(FormatOnly.self, from: data).format
        switch format {
        case 1, 2:
            let envelope = try decoder.decode(Envelope.self, from: data)
            return Stored(tokens: envelope.tokens, dpopKey: envelope.dpopKey)
        default:
            return nil
        }
    }
}
