import Foundation

/// The SDK's own words for people (errors' descriptions), from the String Catalog in the package
/// (`Resources/Localizable.xcstrings`), in English, German, French, Spanish, Japanese and Arabic.
///
/// The catalog is read as the JSON it is, the same on every platform the SDK runs on; a language it lacks falls back to
/// English, and a key it lacks (which the tests rule out) shows as itself.
enum StringCatalog {
    /// The catalog's texts: key, then language, then text.
    private static let texts: [String: [String: String]] = {
        guard let url = Bundle.module.url(forResource: "Localizable", withExtension: "xcstrings"),
            let data = try? Data(contentsOf: url),
            let document = try? JSONDecoder().decode(Document.self, from: data)
        else { return [:] }
        return document.strings.mapValues { entry in entry.localizations.compactMapValues { $0.stringUnit?.value } }
    }()

    /// The catalog's keys, for the tests.
    static var keys: Set<String> { Set(texts.keys) }

    /// The languages each key is translated to, for the tests.
    static func languages(of key: String) -> Set<String> { Set(texts[key]?.keys ?? [:].keys) }

    /// `key`'s text in the first of `languages` (BCP 47 tags, most preferred first) the catalog has, else English, with
    /// `arguments` put in for `%@` and `%1$@`, `%2$@`, ….
    static func text(_ key: String, _ arguments: [String] = [], languages: [String] = Locale.preferredLanguages) -> String {
        guard let entry = texts[key] else { return key }
        return format(entry[language(of: key, languages: languages)] ?? entry["en"] ?? key, arguments)
    }

    /// The language `text(key, languages:)` speaks: the first of `languages` the catalog has `key` in, else English.
    static func language(of key: String, languages: [String]) -> String {
        let entry = texts[key] ?? [:]
        return languages.lazy.map { String($0.prefix { $0 != "-" && $0 != "_" }).lowercased() }.first { entry[$0] != nil } ?? "en"
    }

    /// Whether `language` (a BCP 47 tag) is written right to left, among those the catalog has.
    static func isRightToLeft(_ language: String) -> Bool {
        language.prefix { $0 != "-" && $0 != "_" }.lowercased() == "ar"
    }

    /// `english`, a text made from one of the catalog's messages under `prefix` (its `%@` filled in), in the first of
    /// `languages` the catalog has; `nil` when no message there makes it, such as a server's own words.
    static func translation(of english: String, under prefix: String, languages: [String]) -> String? {
        for key in texts.keys.sorted() where key.hasPrefix(prefix) {
            guard let pattern = texts[key]?["en"], let arguments = arguments(making: english, from: pattern) else { continue }
            return text(key, arguments, languages: languages)
        }
        return nil
    }

    /// The arguments that `pattern` (with `%@` placeholders only) was given to make `text`; `nil` when it cannot make it.
    static func arguments(making text: String, from pattern: String) -> [String]? {
        let parts = pattern.components(separatedBy: "%@")
        guard let first = parts.first, text.hasPrefix(first), text.count >= pattern.count - 2 * (parts.count - 1) else { return nil }
        var rest = text.dropFirst(first.count)
        var arguments: [String] = []
        for (index, part) in parts.enumerated().dropFirst() {
            if index == parts.count - 1 {
                guard rest.hasSuffix(part) else { return nil }
                arguments.append(String(rest.dropLast(part.count)))
                rest = ""
            } else {
                guard !part.isEmpty, let range = rest.range(of: part) else { return nil }
                arguments.append(String(rest[..<range.lowerBound]))
                rest = rest[range.upperBound...]
            }
        }
        return rest.isEmpty ? arguments : nil
    }

    /// `pattern` with `%@` (the next argument) and `%N$@` (argument N) put in; `%%` is a percent sign.
    static func format(_ pattern: String, _ arguments: [String]) -> String {
        var result = ""
        var next = 0
        var characters = pattern[...]
        while let percent = characters.firstIndex(of: "%") {
            result += characters[..<percent]
            characters = characters[characters.index(after: percent)...]
            if characters.hasPrefix("%") {
                result += "%"
                characters = characters.dropFirst()
            } else if characters.hasPrefix("@") {
                result += next < arguments.count ? arguments[next] : ""
                next += 1
                characters = characters.dropFirst()
            } else if let dollar = characters.firstIndex(of: "$"), let position = Int(characters[..<dollar]),
                characters[characters.index(after: dollar)...].hasPrefix("@")
            {
                result += position >= 1 && position <= arguments.count ? arguments[position - 1] : ""
                characters = characters[characters.index(dollar, offsetBy: 2)...]
            } else {
                result += "%"
            }
        }
        return result + characters
    }

    private struct Document: Decodable {
        var strings: [String: Entry]
    }

    private struct Entry: Decodable {
        var localizations: [String: Localization] = [:]

        enum CodingKeys: String, CodingKey { case localizations }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            localizations = try container.decodeIfPresent([String: Localization].self, forKey: .localizations) ?? [:]
        }
    }

    private struct Localization: Decodable {
        var stringUnit: StringUnit?
    }

    private struct StringUnit: Decodable {
        var value: String
    }
}
