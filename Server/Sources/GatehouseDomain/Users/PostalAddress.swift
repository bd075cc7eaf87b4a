import GatehouseFoundation

/// A person's postal address, as the `address` claim carries it (OpenID Connect Core §5.1.1): each part optional.
public struct PostalAddress: Sendable, Equatable, Codable {
    /// The whole address as it is written on a letter, lines separated by newlines.
    public var formatted: String?
    /// Street, house number, apartment: lines separated by newlines.
    public var streetAddress: String?
    /// City or locality.
    public var locality: String?
    /// State, province, prefecture or region.
    public var region: String?
    public var postalCode: String?
    /// The country's name or ISO 3166-1 code.
    public var country: String?

    /// An address of the given parts.
    public init(
        formatted: String? = nil, streetAddress: String? = nil, locality: String? = nil, region: String? = nil, postalCode: String? = nil,
        country: String? = nil
    ) {
        self.formatted = formatted
        self.streetAddress = streetAddress
        self.locality = locality
        self.region = region
        self.postalCode = postalCode
        self.country = country
    }

    /// Whether no part is given.
    public var isEmpty: Bool { [formatted, streetAddress, locality, region, postalCode, country].allSatisfy { $0?.isEmpty ?? true } }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case formatted, locality, region, country
        case streetAddress = "street_address"
        case postalCode = "postal_code"
    }

    /// Each part at most 200 characters (`formatted` and `street_address` 500, which hold lines), no control
    /// characters but the newlines between lines.
    package func validate() throws {
        for (key, value, limit) in [
            ("formatted", formatted, 500), ("street_address", streetAddress, 500), ("locality", locality, 200), ("region", region, 200),
            ("postal_code", postalCode, 200), ("country", country, 200),
        ] {
            guard let value else { continue }
            guard value.count <= limit,
                !value.unicodeScalars.contains(where: { $0 != "\n" && $0.properties.generalCategory == .control })
            else { throw ConfigurationError("address.\(key) must be at most \(limit) characters without control characters (lines apart).") }
        }
    }
}

extension PostalAddress: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("country", country)
        writer.member("formatted", formatted)
        writer.member("locality", locality)
        writer.member("postal_code", postalCode)
        writer.member("region", region)
        writer.member("street_address", streetAddress)
    }
}
