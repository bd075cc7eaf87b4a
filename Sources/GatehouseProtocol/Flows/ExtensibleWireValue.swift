/// A name on the wire that a newer server may add to: the values this version knows, and any other kept as it came
/// (``unknown(_:)``), so a node from a newer server still decodes, renders and submits in an app already released.
public protocol ExtensibleWireValue: RawRepresentable, Codable, Sendable, Hashable where RawValue == String {
    /// The values this version knows.
    static var known: [Self] { get }
    /// A value this version does not know, with its wire name.
    static func unknown(_ name: String) -> Self
}

extension ExtensibleWireValue {
    /// The known value named `rawValue`, or ``unknown(_:)`` with it: never `nil`.
    public init(rawValue: String) {
        self = Self.named(rawValue)
    }

    /// The known value named `name`, or ``unknown(_:)`` with it.
    public static func named(_ name: String) -> Self {
        known.first { $0.rawValue == name } ?? .unknown(name)
    }

    /// Whether this version knows the value.
    public var isKnown: Bool { Self.known.contains(self) }

    /// Reads the wire name: a known value, or ``unknown(_:)`` keeping it.
    public init(from decoder: any Decoder) throws {
        self = Self.named(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the wire name, the unknown one as it came.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
