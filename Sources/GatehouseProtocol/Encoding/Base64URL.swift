import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding every JOSE and PKCE value uses.
///
/// Written on bytes rather than with Foundation's base64 plus character replacement: tokens, codes and
/// signatures are encoded on every token request, and the string replacements cost more than the encoding.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each ASCII byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as unpadded base64url text.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[written] = alphabet[Int(chunk >> 18 & 63)]
                output[written + 1] = alphabet[Int(chunk >> 12 & 63)]
                output[written + 2] = alphabet[Int(chunk >> 6 & 63)]
                output[written + 3] = alphabet[Int(chunk & 63)]
                written += 4
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                output[written] = alphabet[Int(chunk >> 18 & 63)]
                output[written + 1] = alphabet[Int(chunk >> 12 & 63)]
                written += 2
                if rest == 2 {
                    output[written] = alphabet[Int(chunk >> 6 & 63)]
                    written += 1
                }
            }
            return written
        }
    }

    /// Decodes unpadded (or padded) base64url text; returns `nil` when the text is not base64url.
    public static func decode(_ text: String) -> Data? {
        var utf8 = Array(text.utf8)
        // Padding is optional in base64url, but when present it only ends the text.
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        if utf8.count % 4 == 1 { return nil }
        // Bytes into an array, one Data at the end: Data's append of a byte at a time costs more than the decoding.
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in utf8 {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The bits left over must be zero: another text decoding to the same bytes is not the same value.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return Data(output)
    }
}
