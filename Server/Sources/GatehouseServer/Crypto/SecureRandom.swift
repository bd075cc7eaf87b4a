import GatehouseProtocol

/// Unguessable values from the system CSPRNG.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` decimal digits, each uniform (the system generator's `random(in:)` rejects biased draws).
    static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// A 256-bit random token as base64url text: codes, access and refresh tokens, session ids, CSRF tokens.
    static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
