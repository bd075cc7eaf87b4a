import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation

/// The shipped catalogs are complete and consistent, every key the code and templates name exists, and every key
/// the catalogs hold is named somewhere; an operator's overrides are checked the same way at start.
@Suite("Message catalogs")
struct MessageCatalogTests {
    /// The server package's `Sources` folder: this file is `Server/Tests/GatehouseServerTests/Localization/…`.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("every shipped language has exactly English's keys, each with English's arguments")
    func catalogsAreComplete() throws {
        let catalog = try MessageCatalog.shipped.get()
        let english = catalog.keys(in: .base)
        #expect(english.count > 200)
        for language in Language.allCases {
            let keys = catalog.keys(in: language)
            #expect(english.subtracting(keys).isEmpty, "\(language.rawValue) lacks \(english.subtracting(keys).sorted())")
            #expect(keys.subtracting(english).isEmpty, "\(language.rawValue) has unknown \(keys.subtracting(english).sorted())")
            for key in keys {
                let own = try #require(catalog.message(key, in: language)).argumentNames
                let base = try #require(catalog.message(key, in: .base)).argumentNames
                #expect(own == base, "\(language.rawValue) \(key) uses \(own.sorted()), English \(base.sorted())")
            }
        }
    }

    @Test("every key the code and templates name is in the catalog, and every catalog key is named")
    func keysAreUsedAndKnown() throws {
        let catalog = try MessageCatalog.shipped.get()
        let known = catalog.keys(in: .base)
        var literals: Set<String> = []
        var named: Set<String> = []
        let swiftKey = try Regex(#"(?:say|wording|words|question|MessageReference)\(\s*"([a-z0-9_.]+)""#)
        let literal = try Regex(#""([a-z0-9_]+(?:\.[a-z0-9_]+)+)""#)
        let templateKey = try Regex(#"\{\{\s*t\.([a-z0-9_.]+)\s*\}\}"#)
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" || url.pathExtension == "mustache" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            if url.pathExtension == "swift" {
                for match in text.matches(of: swiftKey) { named.insert(String(match.output[1].substring ?? "")) }
                for match in text.matches(of: literal) { literals.insert(String(match.output[1].substring ?? "")) }
            } else {
                for match in text.matches(of: templateKey) { named.insert(String(match.output[1].substring ?? "")) }
            }
        }
        // The messages the courier sends are named by their kind (`message.<kind>.subject` and `.body`).
        named.formUnion(MessageTemplate.allCases.flatMap { [$0.subjectKey, $0.bodyKey] })
        #expect(named.subtracting(known).isEmpty, "named but not in the catalog: \(named.subtracting(known).sorted())")
        let unused = known.subtracting(named).subtracting(literals)
        #expect(unused.isEmpty, "in the catalog but named nowhere: \(unused.sorted())")
    }

    @Test("an override replaces one message; an unknown key, a broken message or an unknown argument is refused with file and key")
    func overrides() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("messages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("de.json")
        try Data(#"{"flow.sign_in.name": "Hereinspaziert bei {client}"}"#.utf8).write(to: file)
        #expect(throws: MessageCatalog.Unreadable.self) { try MessageCatalog.standard.overridden(from: folder.path) }
        try Data(#"{"flow.identify.description": "Hereinspaziert bei {client}"}"#.utf8).write(to: file)
        let catalog = try MessageCatalog.standard.overridden(from: folder.path)
        #expect(catalog.text("flow.identify.description", ["client": "Notes"], in: .german) == "Hereinspaziert bei Notes")
        #expect(catalog.text("flow.identify.description", ["client": "Notes"], in: .english) == "Enter your username to continue to Notes.")
        for (name, text, says) in [
            ("de.json", #"{"flow.no_such_key": "x"}"#, "flow.no_such_key"), ("de.json", #"{"flow.sign_in.name": "{unclosed"}"#, "flow.sign_in.name"),
            ("tlh.json", #"{}"#, "tlh"), ("de.json", "[1]", "one JSON object"),
        ] {
            try? FileManager.default.removeItem(at: file)
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
            do {
                _ = try MessageCatalog.standard.overridden(from: folder.path)
                Issue.record("\(name) \(text) was taken")
            } catch {
                #expect(error.description.contains(says), "\(error.description)")
                #expect(error.description.contains(name), "\(error.description)")
            }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    @Test("templates read argument-free messages nested by key, in the page's language and direction")
    func pageValues() throws {
        let wording = try MessageCatalog.shipped.get().wording(.german)
        let values = wording.pageValues
        #expect(values["lang"] as? String == "de")
        #expect(values["dir"] as? String == "ltr")
        let texts = try #require(values["t"] as? [String: Any])
        let flow = try #require(texts["flow"] as? [String: Any])
        let signIn = try #require(flow["sign_in"] as? [String: Any])
        #expect(signIn["submit"] as? String == "Anmelden")
        #expect(wording("flow.field.code.digits", ["digits": "6"]).text == "Geben Sie den 6-stelligen Code ein.")
        #expect(Language.english.isRightToLeft == false)
        #expect(Language(tag: "de-CH") == .german && Language(tag: "EN") == .english && Language(tag: "x-klingon") == nil)
    }
}
