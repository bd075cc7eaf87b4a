import Foundation
import GatehouseFoundation

/// The operator's brand on the hosted pages (`branding`): the product's name and logo, a favicon, the primary and
/// accent colours, an extra stylesheet; and for some clients their own name and logo where a page names the
/// application (the consent page shows the client's logo, the page's chrome stays the operator's).
public struct BrandingPolicy: Sendable, Codable, Equatable {
    /// A client's own name and logo on the pages that name it.
    public struct ClientBranding: Sendable, Codable, Equatable {
        public var name: String?
        public var logoURL: String?

        public init(name: String? = nil, logoURL: String? = nil) {
            self.name = name
            self.logoURL = logoURL
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.section(CodingKeys.self)
            try container.update(&name, .name)
            try container.update(&logoURL, .logoURL)
        }

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case name
            case logoURL = "logo_url"
        }
    }

    /// What the pages' titles and header call the service.
    public var productName = "Gatehouse"
    /// The logo at the top of every page (https, a path on this server, or a `data:image/` URL).
    public var logoURL: String?
    /// The pages' icon.
    public var faviconURL: String?
    /// The buttons' colour, `#rrggbb`.
    public var primaryColor: String?
    /// The links' colour, `#rrggbb`.
    public var accentColor: String?
    /// A stylesheet every page links after Gatehouse's own (https): its origin is allowed by the pages' CSP.
    public var stylesheetURL: String?
    /// Clients' own names and logos, by client id.
    public var clients: [String: ClientBranding] = [:]

    public init() {}

    /// Keys left out keep their defaults; an unknown key is an error naming its path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        try container.update(&productName, .productName)
        try container.update(&logoURL, .logoURL)
        try container.update(&faviconURL, .faviconURL)
        try container.update(&primaryColor, .primaryColor)
        try container.update(&accentColor, .accentColor)
        try container.update(&stylesheetURL, .stylesheetURL)
        try container.update(&clients, .clients)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case clients
        case productName = "product_name"
        case logoURL = "logo_url"
        case faviconURL = "favicon_url"
        case primaryColor = "primary_color"
        case accentColor = "accent_color"
        case stylesheetURL = "stylesheet_url"
    }

    /// Refuses colours that are not `#rrggbb`, images that are not https or a path here, and a stylesheet that is
    /// not https: the pages' CSP allows nothing else.
    public func validate() throws {
        let name = productName.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 60, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ConfigurationError(key: "branding.product_name", "must be 1 to 60 characters without line breaks.")
        }
        for (key, color) in [("primary_color", primaryColor), ("accent_color", accentColor)] {
            guard let color else { continue }
            guard let contrast = Self.contrastWithWhite(color) else {
                throw ConfigurationError(key: "branding.\(key)", "must be a colour written #rrggbb, not \(color).")
            }
            // White text on the buttons, and links on the white page: WCAG 2.2 AA asks for 4.5:1.
            guard contrast >= 4.5 else {
                throw ConfigurationError(
                    key: "branding.\(key)",
                    "is \(color), which stands only \(String(format: "%.1f", contrast)):1 against white; choose a darker colour (at least 4.5:1).")
            }
        }
        for (key, url) in [("logo_url", logoURL), ("favicon_url", faviconURL)]
            + clients.sorted(by: { $0.key < $1.key }).map({
                ("clients.\($0.key).logo_url", $0.value.logoURL)
            })
        {
            if let url, !Self.isImageSource(url) {
                throw ConfigurationError(
                    key: "branding.\(key)", "must be an https URL, a path on this server (/…) or a data:image/ URL, not \(url.prefix(80)).")
            }
        }
        if let stylesheetURL, Self.origin(of: stylesheetURL) == nil {
            throw ConfigurationError(key: "branding.stylesheet_url", "must be an https URL, not \(stylesheetURL).")
        }
    }

    /// The client's name as the pages show it: the operator's override, else `registered`.
    public func name(of clientID: String, registered: String) -> String { clients[clientID]?.name ?? registered }

    /// The origin (`https://host[:port]`) of an https URL, for the CSP; `nil` for anything else.
    package static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https", let host = components.host, !host.isEmpty else {
            return nil
        }
        return "https://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    /// The contrast ratio of `#rrggbb` against white (WCAG 2's relative luminance), or `nil` if it is not such a colour.
    static func contrastWithWhite(_ color: String) -> Double? {
        guard color.range(of: "^#[0-9A-Fa-f]{6}$", options: .regularExpression) != nil, let value = Int(color.dropFirst(), radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
        return 1.05 / (luminance + 0.05)
    }

    /// What the pages' CSP lets an image come from: this server, https, or a `data:` image.
    private static func isImageSource(_ url: String) -> Bool {
        (url.hasPrefix("/") && !url.hasPrefix("//")) || origin(of: url) != nil || url.lowercased().hasPrefix("data:image/")
    }
}
