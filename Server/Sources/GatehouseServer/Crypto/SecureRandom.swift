import GatehouseProtocol

/// Unguessable values from the system CSPRNG.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        // Eight bytes per draw: each draw is a `getrandom` system call, the most expensive part of a token.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
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
