import GatehouseProtocol

/// Writes one flat JSON object (RFC 8259) straight into bytes, for the documents sent on every token,
/// refresh and userinfo request, where `JSONEncoder`'s generic machinery cost more than the rest of the answer.
///
/// Members are written in the order given (callers give them sorted, like the encoder's `.sortedKeys`);
/// `nil` values are left out, as `encodeIfPresent` does. Keys are trusted ASCII names; values are escaped.
package struct JSONObjectWriter {
    private var bytes: [UInt8]
    private var isEmpty = true

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The finished object.
    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    package mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        writeKey(key)
        writeString(value)
    }

    package mutating func member(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        writeKey(key)
        writeInteger(value)
    }

    package mutating func member(_ key: StaticString, _ value: Int?) {
        member(key, value.map(Int64.init))
    }

    package mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        writeKey(key)
        bytes.append(contentsOf: value ? Self.true : Self.false)
    }

    package mutating func member(_ key: StaticString, _ value: [String]?) {
        guard let value else { return }
        writeKey(key)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in value.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A nested object (`cnf`), written by a writer of its own.
    package mutating func member(_ key: StaticString, object: consuming JSONObjectWriter) {
        writeKey(key)
        bytes.append(contentsOf: object.finish())
    }

    /// A nested object that writes itself (`address`), left out when `nil`.
    package mutating func member(_ key: StaticString, writing value: (some JSONObjectWritable)?) {
        guard let value else { return }
        var nested = JSONObjectWriter(capacity: 128)
        value.write(to: &nested)
        member(key, object: nested)
    }

    /// A member whose name and value come from elsewhere (claims a hook added): the name is escaped here; `json` is one
    /// JSON value its producer serialized.
    package mutating func member(named name: String, json: [UInt8]) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: json)
    }

    private static let `true` = Array("true".utf8)
    private static let `false` = Array("false".utf8)

    private mutating func writeKey(_ key: StaticString) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// RFC 8259 §7: quotation mark, reverse solidus and control characters are escaped; everything else,
    /// including non-ASCII UTF-8, is copied as it is.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: value.utf8)  // the usual case: nothing to escape, one copy
        } else {
            writeEscaped(value)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscaped(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    Hex.lowercaseDigits[Int(byte >> 4)], Hex.lowercaseDigits[Int(byte & 0x0F)],
                ])
            default: bytes.append(byte)
            }
        }
    }

    private mutating func writeInteger(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)  // a small string: no allocation
    }
}
