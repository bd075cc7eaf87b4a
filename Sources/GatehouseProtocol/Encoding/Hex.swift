/// Lowercase hexadecimal, the form SHA-256 digests are stored and compared in.
public enum Hex {
    /// The sixteen digits, as UTF-8 bytes.
    public static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Encodes bytes as lowercase hex, two characters per byte. Runs on every token lookup, so it writes
    /// the characters directly instead of formatting each byte.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // One copy into an array (callers' generic sequences are not specialized across modules), then a loop
        // over contiguous bytes straight into the string's storage.
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: input.count * 2) { output in
            for (index, byte) in input.enumerated() {
                output[2 * index] = lowercaseDigits[Int(byte >> 4)]
                output[2 * index + 1] = lowercaseDigits[Int(byte & 0x0f)]
            }
            return input.count * 2
        }
    }
}
