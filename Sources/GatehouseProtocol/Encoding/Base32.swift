/// Base32 (RFC 4648 §6, uppercase alphabet), the form authenticator apps expect TOTP secrets in.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes; `padded` adds `=` to a multiple of 8 characters (`otpauth://` URIs leave it off).
    public static func encode(_ bytes: [UInt8], padded: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5 + 6)
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        if padded { while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) } }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes Base32, ignoring case, spaces and padding; `nil` for any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: " ") && character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
            buffer &= 0xFFFF
        }
        return output
    }
}
