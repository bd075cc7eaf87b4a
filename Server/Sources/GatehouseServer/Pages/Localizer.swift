import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// Chooses the language to speak to the person making a request: the client's `ui_locales` first, then the person's
/// stored preference, then the request's `Accept-Language`, then the operator's `default_locale`.
struct Localizer: Sendable {
    let catalog: MessageCatalog
    let defaultLanguage: Language
    /// The operator's brand on every page.
    var brand = PageBrand()

    /// The catalog in the language chosen for `request`.
    func wording(for request: Request, requested: [String]? = nil, preference: String? = nil) -> Wording {
        let choice = LanguageChoice(requested: requested ?? [], preference: preference, acceptLanguage: request.headers[.acceptLanguage])
        var wording = catalog.wording(choice.language(default: defaultLanguage))
        wording.brand = brand
        return wording
    }
}
