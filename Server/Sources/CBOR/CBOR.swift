/// One CBOR data item (RFC 8949), limited to what WebAuthn uses: integers, byte and text strings, arrays, maps,
/// booleans and null. Floats, tags and indefinite lengths are refused by ``CBORDecoder``.
public enum CBOR: Sendable, Hashable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1), stored as CBOR does: the value is `-1 - n`.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array (major type 4).
    case array([CBOR])
    /// A map (major type 5), its pairs in the order they were read; keys are unique.
    case map(CBORMap)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The value as an `Int`, when it is an integer that fits.
    public var int: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text of a text string.
    public var text: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The items of an array.
    public var array: [CBOR]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The pairs of a map.
    public var map: CBORMap? {
        if case .map(let map) = self { map } else { nil }
    }

    /// An integer item.
    public init(_ value: Int) {
        self = value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// The pairs of a CBOR map, in the order they were read, with unique keys.
public struct CBORMap: Sendable, Hashable {
    /// The keys, in order.
    public private(set) var keys: [CBOR] = []
    /// The values, in the order of ``keys``.
    public private(set) var values: [CBOR] = []

    /// An empty map.
    public init() {}

    /// A map of `pairs`, in their order; a repeated key keeps its last value.
    public init(_ pairs: [(CBOR, CBOR)]) {
        for (key, value) in pairs { self[key] = value }
    }

    /// How many pairs the map has.
    public var count: Int { keys.count }

    /// The value of `key`; setting adds the pair at the end or replaces its value.
    public subscript(key: CBOR) -> CBOR? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The value of an integer key, as COSE keys use.
    public subscript(int key: Int) -> CBOR? {
        get { self[CBOR(key)] }
        set { self[CBOR(key)] = newValue }
    }

    /// The value of a text key, as attestation objects use.
    public subscript(text key: String) -> CBOR? {
        get { self[.text(key)] }
        set { self[.text(key)] = newValue }
    }

    /// Whether the map has `key` (the decoder refuses a map that repeats one).
    public func contains(_ key: CBOR) -> Bool { keys.contains(key) }
}
