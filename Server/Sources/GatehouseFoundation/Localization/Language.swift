/// A language Gatehouse ships a complete message catalog for (`Resources/messages/<code>.json`); a language joins
/// this list when its catalog has every English key.
package enum Language: String, Sendable, CaseIterable, Codable, Comparable {
    case english = "en"
    case german = "de"
    case french = "fr"
    case spanish = "es"
    case japanese = "ja"
    case arabic = "ar"

    /// The language every catalog is checked against and every missing message falls back to.
    package static let base = Language.english

    /// The BCP 47 tag pages carry in `lang`.
    package var tag: String { rawValue }

    /// The language's name in itself, as a choice of language shows it.
    package var endonym: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        case .french: "Français"
        case .spanish: "Español"
        case .japanese: "日本語"
        case .arabic: "العربية"
        }
    }

    /// Whether the language is written right to left: its pages carry `dir="rtl"` and their layout mirrors.
    package var isRightToLeft: Bool { Self.rightToLeftTags.contains(rawValue) }

    /// The languages written right to left (Arabic, Hebrew, Persian, Urdu), by primary subtag.
    static let rightToLeftTags: Set<String> = ["ar", "he", "fa", "ur"]

    /// The shipped language a BCP 47 tag such as `de-CH` or `fr` names by its primary subtag, if any.
    package init?(tag: some StringProtocol) {
        let primary = tag.split(separator: "-", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard let language = Language(rawValue: primary) else { return nil }
        self = language
    }

    package static func < (lhs: Language, rhs: Language) -> Bool { lhs.rawValue < rhs.rawValue }
}
