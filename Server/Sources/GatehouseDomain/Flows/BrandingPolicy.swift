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
    /// The logo at the top of every page (https, or a path on this server).
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
            if let color, color.range(of: "^#[0-9A-Fa-f]{6}$", options: .regularExpression) == nil {
                throw ConfigurationError(key: "branding.\(key)", "must be a colour written #rrggbb, not \(color).")
            }
        }
        for (key, url) in [("logo_url", logoURL), ("favicon_url", faviconURL)]
            + clients.sorted(by: { $0.key < $1.key }).map({
                ("clients.\($0.key).logo_url", $0.value.logoURL)
            })
        {
            if let url, !Self.isImageSource(url) {
                throw ConfigurationError(key: "branding.\(key)", "must be an https URL or a path on this server (/…), not \(url).")
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

    private static func isImageSource(_ url: String) -> Bool {
        (url.hasPrefix("/") && !url.hasPrefix("//")) || origin(of: url) != nil
    }
}
