/// The plural form a count takes in a language (Unicode CLDR's cardinal plural rules, for whole numbers).
package enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other

    /// The form `count` takes in `language`.
    package init(_ count: Int, in language: Language) {
        self.init(count, tag: language.rawValue)
    }

    /// The form `count` takes in the language of the primary subtag `tag` (one and other, as in English, for a
    /// language without rules here).
    package init(_ count: Int, tag: String) {
        let n = count.magnitude
        switch tag {
        case "es":
            self = n == 1 ? .one : (n != 0 && n % 1_000_000 == 0 ? .many : .other)
        case "fr":
            self = n <= 1 ? .one : (n % 1_000_000 == 0 ? .many : .other)
        case "ja", "zh", "ko":
            self = .other
        case "ar":
            switch (n, n % 100) {
            case (0, _): self = .zero
            case (1, _): self = .one
            case (2, _): self = .two
            case (_, 3...10): self = .few
            case (_, 11...99): self = .many
            default: self = .other
            }
        default:
            self = n == 1 ? .one : .other
        }
    }
}
