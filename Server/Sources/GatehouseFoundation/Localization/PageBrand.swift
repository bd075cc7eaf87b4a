/// What every hosted page shows of the operator's brand (`branding`): the name in its title and header, a logo, a
/// favicon, the colours' stylesheet and an extra stylesheet. Only what is set is given to the templates.
package struct PageBrand: Sendable, Equatable {
    package var name = "Gatehouse"
    package var logoURL: String?
    package var faviconURL: String?
    /// The operator's stylesheet, linked after Gatehouse's own.
    package var stylesheetURL: String?
    /// Whether `/assets/brand.css` carries the operator's colours.
    package var hasColors = false

    package init(name: String = "Gatehouse", logoURL: String? = nil, faviconURL: String? = nil, stylesheetURL: String? = nil, hasColors: Bool = false) {
        self.name = name
        self.logoURL = logoURL
        self.faviconURL = faviconURL
        self.stylesheetURL = stylesheetURL
        self.hasColors = hasColors
    }

    /// The template's `brand`: a key for each thing set (an empty string would count as set in Mustache).
    var values: [String: Any] {
        var values: [String: Any] = ["name": name, "colors": hasColors]
        if let logoURL { values["logo"] = logoURL }
        if let faviconURL { values["favicon"] = faviconURL }
        if let stylesheetURL { values["stylesheet"] = stylesheetURL }
        return values
    }
}
