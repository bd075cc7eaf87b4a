import Foundation

/// Every message a person can read, in every shipped language: the catalogs in `Resources/messages/<language>.json`
/// (one flat JSON object per language, a stable key per message, ICU MessageFormat text), with an operator's
/// overrides from `messages_dir` laid over them. Parsed once at start; a message missing in a language falls back to
/// English, and the suite fails on any such gap in the shipped catalogs.
package struct MessageCatalog: Sendable {
    /// The folder of the resources the catalogs are in.
    package static let folder = "messages"

    private let messages: [Language: [String: MessageFormat]]
    /// The texts of the messages without arguments, nested by the key's dotted parts, for templates (`{{t.flow.next}}`).
    private let templateTexts: [Language: NestedTexts]

    /// The shipped catalogs, read and parsed once.
    package static let shipped = Result { () throws(Unreadable) -> MessageCatalog in
        let files: [String: String]
        do {
            files = try PackageResources.texts(under: folder, withExtension: "json")
        } catch {
            throw Unreadable(file: folder, reason: "\(error)")
        }
        var messages: [Language: [String: MessageFormat]] = [:]
        for language in Language.allCases {
            guard let text = files[language.rawValue] else { throw Unreadable(file: "\(folder)/\(language.rawValue).json", reason: "the file is missing") }
            messages[language] = try parse(text, file: "\(folder)/\(language.rawValue).json")
        }
        return try MessageCatalog(messages: messages)
    }

    /// The shipped catalogs, or English texts' keys if they could not be read (``requireShipped()`` ran at start).
    package static var standard: MessageCatalog { (try? shipped.get()) ?? MessageCatalog(empty: ()) }

    /// Stops a server whose catalogs cannot be read or do not parse, naming the file and key.
    package static func requireShipped() throws(Unreadable) {
        _ = try shipped.get()
    }

    private init(empty: Void) {
        messages = [:]
        templateTexts = [:]
    }

    private init(messages: [Language: [String: MessageFormat]]) throws(Unreadable) {
        self.messages = messages
        var templateTexts: [Language: NestedTexts] = [:]
        for (language, catalog) in messages {
            var nested: [String: Any] = [:]
            for (key, message) in catalog.sorted(by: { $0.key < $1.key }) where message.argumentNames.isEmpty {
                let path = key.split(separator: ".").map(String.init)
                guard Self.insert(message.format([:], in: language), at: path[...], into: &nested) else {
                    throw Unreadable(file: "\(Self.folder)/\(language.rawValue).json", reason: "the key \(key) is both a message and a group of messages")
                }
            }
            templateTexts[language] = NestedTexts(values: nested)
        }
        self.templateTexts = templateTexts
    }

    /// This catalog with the messages of every `<language>.json` in `directory` laid over it. A file for a language
    /// that is not shipped, a key no shipped catalog has, a message that does not parse or names an argument the
    /// English message does not have is refused, naming the file and the key.
    package func overridden(from directory: String) throws(Unreadable) -> MessageCatalog {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw Unreadable(file: directory, reason: "the folder cannot be read (\(error.localizedDescription))")
        }
        var messages = self.messages
        let english = self.messages[.base] ?? [:]
        for name in files {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let language = Language(rawValue: String(name.dropLast(5))) else {
                throw Unreadable(
                    file: path,
                    reason:
                        "no language is shipped as \(name.dropLast(5)); name the file after one of \(Language.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(file: path, reason: "the file cannot be read") }
            for (key, message) in try Self.parse(String(decoding: data, as: UTF8.self), file: path) {
                guard let original = english[key] else { throw Unreadable(file: path, reason: "the key \(key) is not a message of Gatehouse") }
                let unknown = message.argumentNames.subtracting(original.argumentNames)
                guard unknown.isEmpty else {
                    throw Unreadable(file: path, reason: "the message \(key) uses {\(unknown.sorted().joined(separator: "}, {"))}, which it is not given")
                }
                messages[language, default: [:]][key] = message
            }
        }
        return try MessageCatalog(messages: messages)
    }

    /// The catalog's messages bound to `language`, for a part that speaks to one person.
    package func wording(_ language: Language) -> Wording { Wording(language: language, catalog: self) }

    /// The message `key` in `language` (English if the language has none), with `arguments` put in; the key itself if
    /// no catalog has it.
    package func text(_ key: String, _ arguments: [String: String] = [:], in language: Language) -> String {
        guard let message = message(key, in: language) else { return key }
        return message.format(arguments, in: language)
    }

    /// The message `key` in `language`, or English's.
    package func message(_ key: String, in language: Language) -> MessageFormat? {
        messages[language]?[key] ?? messages[.base]?[key]
    }

    /// The keys of `language`'s catalog.
    package func keys(in language: Language) -> Set<String> { Set(messages[language]?.keys ?? [:].keys) }

    /// The messages without arguments in `language`, nested by their keys' parts, for templates; English's where the
    /// language has none.
    package func templateTexts(in language: Language) -> [String: Any] {
        (templateTexts[language] ?? templateTexts[.base])?.values ?? [:]
    }

    /// Texts nested in dictionaries, as a template reads them; only strings and dictionaries of them, never changed
    /// once made.
    private struct NestedTexts: @unchecked Sendable {
        let values: [String: Any]
    }

    private static func parse(_ text: String, file: String) throws(Unreadable) -> [String: MessageFormat] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            throw Unreadable(file: file, reason: "the file is not JSON (\(error.localizedDescription))")
        }
        guard let texts = object as? [String: Any] else { throw Unreadable(file: file, reason: "the file is not one JSON object of keys and texts") }
        var messages: [String: MessageFormat] = [:]
        for (key, value) in texts {
            guard let text = value as? String else { throw Unreadable(file: file, reason: "the value of \(key) is not a string") }
            do {
                messages[key] = try MessageFormat(text)
            } catch {
                throw Unreadable(file: file, reason: "the message \(key): \(error.reason)")
            }
        }
        return messages
    }

    private static func insert(_ text: String, at path: ArraySlice<String>, into nested: inout [String: Any]) -> Bool {
        guard let first = path.first else { return false }
        if path.count == 1 {
            guard nested[first] == nil else { return false }
            nested[first] = text
            return true
        }
        if nested[first] is String { return false }
        var inner = nested[first] as? [String: Any] ?? [:]
        guard insert(text, at: path.dropFirst(), into: &inner) else { return false }
        nested[first] = inner
        return true
    }

    /// A catalog that cannot be read, does not parse, or holds what Gatehouse does not have.
    package struct Unreadable: Error, CustomStringConvertible {
        package let file: String
        package let reason: String
        package var description: String { "The message catalog \(file) cannot be used: \(reason)." }
    }
}
