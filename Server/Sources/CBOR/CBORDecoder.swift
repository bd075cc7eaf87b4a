/// Reads CBOR (RFC 8949) with hard limits on input size, nesting depth and item counts, so that hostile input ends
/// in a ``CBORError`` quickly, never in a crash, a hang or a large allocation.
public struct CBORDecoder: Sendable {
    /// Bytes read at most (the whole input).
    public var maxInputSize = 64 * 1024
    /// Arrays and maps nested at most this deep.
    public var maxDepth = 16
    /// Items in one array, or pairs in one map, at most.
    public var maxItems = 1024

    /// A decoder with the default limits: 64 KiB, depth 16, 1024 items per container.
    public init() {}

    /// Reads `input` as exactly one item.
    public func decode(_ input: [UInt8]) throws(CBORError) -> CBOR {
        let (item, end) = try decodePrefix(input)
        guard end == input.count else { throw .trailingBytes(offset: end) }
        return item
    }

    /// Reads the item that starts `input` and returns it with the offset just past it; what follows is the caller's
    /// (WebAuthn's authenticator data puts extensions after the public key).
    public func decodePrefix(_ input: [UInt8], from start: Int = 0) throws(CBORError) -> (CBOR, end: Int) {
        guard input.count <= maxInputSize else { throw .tooLarge(size: input.count, limit: maxInputSize) }
        var reader = Reader(bytes: input, offset: start, limits: self)
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let limits: CBORDecoder

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// The argument of an item head: the additional information itself or the 1, 2, 4 or 8 bytes after it.
        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                let count = 1 << Int(info - 24)
                guard bytes.count - offset >= count else { throw .truncated(offset: offset) }
                var value: UInt64 = 0
                for _ in 0..<count { value = value << 8 | UInt64(bytes[offset]); offset += 1 }
                return value
            case 31: throw .unsupported("indefinite length", offset: start)
            default: throw .unsupported("reserved additional information \(info)", offset: start)
            }
        }

        /// A length within `limit` (else too large) that fits in what is left, `available` (else truncated).
        func length(_ value: UInt64, limit: Int, available: Int, at start: Int) throws(CBORError) -> Int {
            guard value <= UInt64(limit) else { throw .lengthTooLarge(offset: start) }
            guard value <= UInt64(available) else { throw .truncated(offset: bytes.count) }
            return Int(value)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let start = offset
            let head = try byte()
            let major = head >> 5
            let info = head & 0x1F
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 25, 26, 27: throw .unsupported("floating-point numbers", offset: start)
                default: throw .unsupported("simple value \(info)", offset: start)
                }
            }
            let argument = try argument(info, at: start)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2, 3:
                let count = try length(argument, limit: limits.maxInputSize, available: bytes.count - offset, at: start)
                let content = Array(bytes[offset..<offset + count])
                offset += count
                guard major == 3 else { return .bytes(content) }
                guard let text = String(validating: content, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
                return .text(text)
            case 4:
                guard depth < limits.maxDepth else { throw .tooDeep(offset: start) }
                // Every item takes at least one byte: a count beyond what is left cannot be right.
                let count = try length(argument, limit: limits.maxItems, available: bytes.count - offset, at: start)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard depth < limits.maxDepth else { throw .tooDeep(offset: start) }
                let count = try length(argument, limit: limits.maxItems, available: (bytes.count - offset) / 2, at: start)
                var map = CBORMap()
                for _ in 0..<count {
                    let keyOffset = offset
                    let key = try item(depth: depth + 1)
                    guard !map.contains(key) else { throw .duplicateKey(offset: keyOffset) }
                    map[key] = try item(depth: depth + 1)
                }
                return .map(map)
            default:
                throw .unsupported("tags", offset: start)
            }
        }
    }
}
