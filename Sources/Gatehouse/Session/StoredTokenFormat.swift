import Foundation

/// The versioned form a session's tokens are stored in. Every format ever written stays readable, so an app update
/// never signs anyone out; a format newer than this SDK reads as "no tokens" rather than an error.
///
/// Format 1 held the tokens; format 2 adds the DPoP key they are bound to, when they are; format 3 is one record per
/// account (``AccountDirectory``) and adds the session's ``SessionProtection``.
enum StoredTokenFormat {
    static let current = 3

    /// What a session keeps.
    struct Stored: Equatable {
        var tokens: TokenSet
        /// ``DPoPKey/storedRepresentation`` of the key the tokens are bound to.
        var dpopKey: Data?
        /// How the record is guarded; standard for records older than format 3.
        var protection: SessionProtection = .standard
    }

    private struct Envelope: Codable {
        var format: Int
        var tokens: TokenSet
        var dpopKey: Data?
        var protection: SessionProtection?

        enum CodingKeys: String, CodingKey {
            case format, tokens, protection
            case dpopKey = "dpop_key"
        }
    }

    private struct FormatOnly: Decodable {
        var format: Int
    }

    static func encode(_ tokens: TokenSet, dpopKey: Data? = nil, protection: SessionProtection = .standard) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(Envelope(format: current, tokens: tokens, dpopKey: dpopKey, protection: protection))
    }

    /// The stored session, or `nil` when the data was written by a newer SDK.
    static func decode(_ data: Data) throws -> Stored? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard (1...current).contains(try decoder.decode(FormatOnly.self, from: data).format) else { return nil }
        let envelope = try decoder.decode(Envelope.self, from: data)
        return Stored(tokens: envelope.tokens, dpopKey: envelope.dpopKey, protection: envelope.protection ?? .standard)
    }
}
