/// One message of a catalog, parsed: ICU MessageFormat's plain arguments (`{client}`) and plurals
/// (`{seconds, plural, one {# second} other {# seconds}}`, with `=N` for exact counts and `#` for the count).
/// Apostrophes follow ICU's default: `''` is one apostrophe, and `'` quotes only before `{`, `}` or `#`, so ordinary
/// text such as "don't" or "l'adresse" needs no escaping.
package struct MessageFormat: Sendable, Equatable {
    indirect enum Part: Sendable, Equatable {
        case text(String)
        case argument(String)
        /// A plural of the argument: exact counts first, then the language's category, then `other`.
        case plural(String, exact: [Int: [Part]], categories: [PluralCategory: [Part]])
        /// The count of the plural the part is in.
        case count
    }

    let parts: [Part]

    /// Parses `pattern`, or says where it breaks the syntax.
    package init(_ pattern: String) throws(Invalid) {
        var parser = Parser(characters: Array(pattern))
        parts = try parser.message(inPlural: false)
        guard parser.isAtEnd else { throw Invalid(reason: "an unmatched '}' at character \(parser.index + 1)") }
    }

    /// The names of the arguments the message uses, plurals' included.
    package var argumentNames: Set<String> { Self.names(in: parts) }

    private static func names(in parts: [Part]) -> Set<String> {
        parts.reduce(into: []) { names, part in
            switch part {
            case .text, .count: break
            case .argument(let name): names.insert(name)
            case .plural(let name, let exact, let categories):
                names.insert(name)
                for branch in Array(exact.values) + Array(categories.values) { names.formUnion(Self.names(in: branch)) }
            }
        }
    }

    /// The message with `arguments` put in, plurals chosen by `language`'s rules; a missing argument is left empty and
    /// a plural's argument that is not a whole number counts as `other`.
    package func format(_ arguments: [String: String], in language: Language) -> String {
        Self.format(parts, arguments, in: language, count: nil)
    }

    private static func format(_ parts: [Part], _ arguments: [String: String], in language: Language, count: String?) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .argument(let name):
                // Right to left, a value (a name, an address, a number) is isolated, so its own direction cannot
                // reorder the sentence around it (Unicode's first-strong isolate).
                let value = arguments[name] ?? ""
                text += language.isRightToLeft && !value.isEmpty ? "\u{2068}" + value + "\u{2069}" : value
            case .count: text += count ?? "#"
            case .plural(let name, let exact, let categories):
                let value = arguments[name] ?? ""
                let branch: [Part]? =
                    if let number = Int(value) {
                        exact[number] ?? categories[PluralCategory(number, in: language)] ?? categories[.other]
                    } else {
                        categories[.other]
                    }
                text += format(branch ?? [], arguments, in: language, count: value)
            }
        }
        return text
    }

    /// A pattern that breaks the syntax.
    package struct Invalid: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { "The message is not valid ICU MessageFormat: \(reason)." }
    }

    private struct Parser {
        let characters: [Character]
        var index = 0

        var isAtEnd: Bool { index >= characters.count }

        /// Text and arguments up to an unmatched `}` or the end.
        mutating func message(inPlural: Bool) throws(Invalid) -> [Part] {
            var parts: [Part] = []
            var literal = ""
            func flush() {
                if !literal.isEmpty { parts.append(.text(literal)) }
                literal = ""
            }
            while !isAtEnd {
                let character = characters[index]
                switch character {
                case "'":
                    literal += quoted(inPlural: inPlural)
                case "{":
                    flush()
                    index += 1
                    parts.append(try argument())
                case "}":
                    flush()
                    return parts
                case "#" where inPlural:
                    flush()
                    parts.append(.count)
                    index += 1
                default:
                    literal.append(character)
                    index += 1
                }
            }
            flush()
            return parts
        }

        /// At an apostrophe: one apostrophe for `''`, the quoted text for `'{…'`, or the apostrophe itself.
        mutating func quoted(inPlural: Bool) -> String {
            index += 1
            guard !isAtEnd else { return "'" }
            if characters[index] == "'" {
                index += 1
                return "'"
            }
            guard characters[index] == "{" || characters[index] == "}" || (inPlural && characters[index] == "#") else { return "'" }
            var text = ""
            while !isAtEnd {
                if characters[index] == "'" {
                    if index + 1 < characters.count, characters[index + 1] == "'" {
                        text += "'"
                        index += 2
                        continue
                    }
                    index += 1
                    return text
                }
                text.append(characters[index])
                index += 1
            }
            return text
        }

        /// After `{`: `name}` or `name, plural, branches}`.
        mutating func argument() throws(Invalid) -> Part {
            let name = word()
            guard !name.isEmpty else { throw Invalid(reason: "an argument without a name at character \(index + 1)") }
            skipSpaces()
            guard !isAtEnd else { throw Invalid(reason: "the argument {\(name) is not closed") }
            if characters[index] == "}" {
                index += 1
                return .argument(name)
            }
            guard characters[index] == "," else { throw Invalid(reason: "unexpected '\(characters[index])' in the argument {\(name)}") }
            index += 1
            skipSpaces()
            let type = word()
            guard type == "plural" else {
                throw Invalid(reason: "the argument {\(name)} has the type '\(type)'; only plain and plural arguments are supported")
            }
            skipSpaces()
            guard !isAtEnd, characters[index] == "," else { throw Invalid(reason: "the plural {\(name)} has no branches") }
            index += 1
            var exact: [Int: [Part]] = [:]
            var categories: [PluralCategory: [Part]] = [:]
            while true {
                skipSpaces()
                guard !isAtEnd else { throw Invalid(reason: "the plural {\(name)} is not closed") }
                if characters[index] == "}" {
                    index += 1
                    break
                }
                let selector = word()
                skipSpaces()
                guard !isAtEnd, characters[index] == "{" else { throw Invalid(reason: "the branch '\(selector)' of {\(name)} has no text in braces") }
                index += 1
                let branch = try message(inPlural: true)
                guard !isAtEnd else { throw Invalid(reason: "the branch '\(selector)' of {\(name)} is not closed") }
                index += 1
                if selector.hasPrefix("="), let number = Int(selector.dropFirst()) {
                    exact[number] = branch
                } else if let category = PluralCategory(rawValue: selector) {
                    categories[category] = branch
                } else {
                    throw Invalid(reason: "the plural {\(name)} has the unknown branch '\(selector)'")
                }
            }
            guard categories[.other] != nil else { throw Invalid(reason: "the plural {\(name)} has no 'other' branch") }
            return .plural(name, exact: exact, categories: categories)
        }

        mutating func word() -> String {
            var word = ""
            while !isAtEnd, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "=" {
                word.append(characters[index])
                index += 1
            }
            return word
        }

        mutating func skipSpaces() {
            while !isAtEnd, characters[index].isWhitespace { index += 1 }
        }
    }
}
