import Foundation

/// The messages of a catalog bound to one language: what a part that speaks to one person uses.
package struct Wording: Sendable {
    package let language: Language
    package let catalog: MessageCatalog
    /// The operator's brand on the pages this wording renders.
    package var brand = PageBrand()

    /// The shipped catalog in English.
    package static var english: Wording { MessageCatalog.standard.wording(.base) }

    /// The message `key` with `arguments` put in, with its key kept beside it.
    package func callAsFunction(_ key: String, _ arguments: [String: String] = [:]) -> Phrase {
        Phrase(id: key, text: catalog.text(key, arguments, in: language), arguments: arguments)
    }

    /// A moment (seconds since 1970) as this language writes a date and time, in UTC, which the page says; "-" for none.
    package func date(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        let style = Date.FormatStyle(
            date: .abbreviated, time: .shortened, locale: Locale(identifier: language.tag), calendar: Calendar(identifier: .gregorian),
            timeZone: TimeZone(identifier: "UTC") ?? .current)
        return Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(style) + " UTC"
    }

    /// What every page's template is given: the language's tag and direction, and its texts (`{{t.…}}`).
    package var pageValues: [String: Any] {
        ["lang": language.tag, "dir": language.isRightToLeft ? "rtl" : "ltr", "t": catalog.templateTexts(in: language), "brand": brand.values]
    }
}

/// A message in the language it was asked in, with its stable key and the arguments it was given, so an app can
/// show its own wording.
package struct Phrase: Sendable, Equatable, CustomStringConvertible {
    /// The message's key in the catalogs, e.g. `flow.sign_in.name`.
    package let id: String
    package let text: String
    package let arguments: [String: String]

    package var description: String { text }

    /// A message with its key, as the caller already has it in words (a rule's message the node carries).
    package init(id: String, text: String, arguments: [String: String] = [:]) {
        self.id = id
        self.text = text
        self.arguments = arguments
    }
}
