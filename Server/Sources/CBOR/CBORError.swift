/// Why bytes could not be read as CBOR: each case names a class of malformed input, so callers can answer with a
/// precise message and tests can check each class.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended inside an item.
    case truncated(offset: Int)
    /// A length or count larger than what is left of the input, or than the decoder allows.
    case lengthTooLarge(offset: Int)
    /// Nesting deeper than the decoder allows.
    case tooDeep(offset: Int)
    /// More input than the decoder allows in all.
    case tooLarge(size: Int, limit: Int)
    /// Bytes left after the item.
    case trailingBytes(offset: Int)
    /// A map that repeats a key.
    case duplicateKey(offset: Int)
    /// A text string that is not UTF-8.
    case invalidUTF8(offset: Int)
    /// Something WebAuthn never uses: floats, tags, indefinite lengths, simple values other than true, false and
    /// null, or the reserved additional information values.
    case unsupported(String, offset: Int)

    public var description: String {
        switch self {
        case .truncated(let offset): "The CBOR input ends inside an item (at byte \(offset))."
        case .lengthTooLarge(let offset): "A CBOR length at byte \(offset) is larger than the input or the limit."
        case .tooDeep(let offset): "CBOR items are nested too deeply (at byte \(offset))."
        case .tooLarge(let size, let limit): "The CBOR input is \(size) bytes; at most \(limit) are read."
        case .trailingBytes(let offset): "Bytes follow the CBOR item (from byte \(offset))."
        case .duplicateKey(let offset): "A CBOR map repeats a key (at byte \(offset))."
        case .invalidUTF8(let offset): "A CBOR text string is not UTF-8 (at byte \(offset))."
        case .unsupported(let what, let offset): "CBOR \(what) is not supported (at byte \(offset))."
        }
    }
}
