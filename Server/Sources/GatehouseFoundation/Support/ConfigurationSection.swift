extension Decoder {
    /// The keyed container of one section of the configuration file, after checking that the section holds only keys
    /// it knows: a typo at any depth (`sign_on.optional_enrolment`, `courier.voice`) stops the server with the key's
    /// path instead of starting it without the setting.
    package func section<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        let present = try container(keyedBy: ConfigurationKey.self).allKeys.map(\.stringValue)
        let known = Keys.allCases.map(\.stringValue)
        if let unknown = present.sorted().first(where: { !known.contains($0) }) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [ConfigurationKey(stringValue: unknown)],
                    debugDescription: "unknown key; the keys here are \(known.sorted().joined(separator: ", "))"
                ))
        }
        return try container(keyedBy: keys)
    }
}

/// Any key, to list what a section holds.
private struct ConfigurationKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer {
    /// Sets `value` to the section's `key` when the file gives it; a key left out keeps the default `value` holds.
    package func update<T: Decodable>(_ value: inout T, _ key: Key) throws {
        if let decoded = try decodeIfPresent(T.self, forKey: key) { value = decoded }
    }

    /// Sets an optional setting to the section's `key` when the file gives it.
    package func update<T: Decodable>(_ value: inout T?, _ key: Key) throws {
        if let decoded = try decodeIfPresent(T.self, forKey: key) { value = decoded }
    }
}
