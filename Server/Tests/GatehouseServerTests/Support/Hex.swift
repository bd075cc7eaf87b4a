extension Array where Element == UInt8 {
    /// Bytes from hex text, as RFCs and the WebAuthn test vectors print them; spaces are ignored.
    init(hex: String) {
        let digits = [Character](hex.filter { !$0.isWhitespace })
        self = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
    }
}
