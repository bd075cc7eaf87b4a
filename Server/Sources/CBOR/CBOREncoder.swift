/// Writes CBOR in the deterministic form CTAP2 uses: shortest heads, map pairs in the order given. Software
/// authenticators and tests use it; the server only reads.
public enum CBOREncoder {
    /// The encoding of `item`.
    public static func encode(_ item: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        write(item, to: &out)
        return out
    }

    private static func head(_ major: UInt8, _ value: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch value {
        case 0..<24: out.append(type | UInt8(value))
        case 24...0xFF: out += [type | 24, UInt8(value)]
        case 0x100...0xFFFF: out += [type | 25] + bigEndian(value, count: 2)
        case 0x1_0000...0xFFFF_FFFF: out += [type | 26] + bigEndian(value, count: 4)
        default: out += [type | 27] + bigEndian(value, count: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func write(_ item: CBOR, to out: inout [UInt8]) {
        switch item {
        case .unsigned(let value): head(0, value, to: &out)
        case .negative(let value): head(1, value, to: &out)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), to: &out)
            out += bytes
        case .text(let text):
            head(3, UInt64(text.utf8.count), to: &out)
            out += Array(text.utf8)
        case .array(let items):
            head(4, UInt64(items.count), to: &out)
            for item in items { write(item, to: &out) }
        case .map(let map):
            head(5, UInt64(map.count), to: &out)
            for (key, value) in zip(map.keys, map.values) {
                write(key, to: &out)
                write(value, to: &out)
            }
        case .bool(let value): out.append(value ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }
}
