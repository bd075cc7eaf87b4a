import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// Chooses the language to speak to the person making a request: the client's `ui_locales` first, then the person's
/// stored preference, then the request's `Accept-Language`, then the operator's `default_locale`.
struct Localizer: Sendable {
    let catalog: MessageCatalog
    let defaultLanguage: Language

    /// The catalog in the language chosen for `request`.
    func wording(for request: Request, requested: [String]? = nil, preference: String? = nil) -> Wording {
        let choice = LanguageChoice(requested: requested ?? [], preference: preference, acceptLanguage: request.headers[.acceptLanguage])
        return catalog.wording(choice.language(default: defaultLanguage))
    }
}
