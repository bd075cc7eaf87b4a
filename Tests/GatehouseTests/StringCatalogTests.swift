import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

/// The SDK's words for people come from its String Catalog, complete in six languages, falling back to English.
@Suite("The SDK's String Catalog")
struct StringCatalogTests {
    static let languages: Set<String> = ["en", "de", "fr", "es", "ja", "ar"]

    /// The SDK's sources: this file is `Tests/GatehouseTests/…`.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Gatehouse")

    @Test("every key is translated to all six languages, each with English's placeholders")
    func complete() throws {
        #expect(StringCatalog.keys.count >= 20)
        let placeholder = try Regex(#"%(?:\d+\$)?@"#)
        for key in StringCatalog.keys {
            #expect(StringCatalog.languages(of: key) == Self.languages, "\(key)")
            let english = StringCatalog.text(key, languages: ["en"]).matches(of: placeholder).count
            for language in Self.languages {
                let own = StringCatalog.text(key, ["A", "B", "C"], languages: [language])
                #expect(!own.contains("%@") && !own.contains("$@"), "\(language) \(key)")
                let count = StringCatalog.text(key, languages: [language]).matches(of: placeholder).count
                #expect(count <= english, "\(language) \(key)")
            }
        }
    }

    @Test("every key the SDK names is in the catalog, and every catalog key is named")
    func keysAreUsed() throws {
        var named: Set<String> = []
        let call = try Regex(#"(?:say|StringCatalog\.text)\("([a-z_.]+)""#)
        let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            for match in try String(contentsOf: url, encoding: .utf8).matches(of: call) { named.insert(String(match.output[1].substring ?? "")) }
        }
        #expect(named == StringCatalog.keys, "named only: \(named.subtracting(StringCatalog.keys)); unused: \(StringCatalog.keys.subtracting(named))")
    }

    @Test("an error speaks the first language the SDK has, else English; its description for logs is English")
    func errorsSpeakTheLanguage() {
        #expect(GatehouseError.invalidCredentials.localizedDescription(in: ["de-DE", "en"]) == "Benutzername oder Passwort ist falsch.")
        #expect(GatehouseError.invalidCredentials.localizedDescription(in: ["tlh", "ja-JP"]) == "ユーザー名またはパスワードが正しくありません。")
        #expect(GatehouseError.invalidCredentials.localizedDescription(in: ["tlh"]) == "The username or password is incorrect.")
        #expect(GatehouseError.invalidCredentials.description == "The username or password is incorrect.")
        #expect(
            GatehouseError.provider(status: 400, error: "invalid_grant", description: "expired").localizedDescription(in: ["fr"])
                == "Le fournisseur d’identité a répondu HTTP 400 invalid_grant: expired.")
        #expect(
            GatehouseError.browserRedirect(.issuerMismatch(expected: "https://a", found: nil)).localizedDescription(in: ["es"])
                == "El navegador volvió con una respuesta de un emisor sin nombre, no de https://a; se ignoró. Empieza de nuevo.")
        #expect(GatehouseError.network("timed out").localizedDescription(in: ["ar"]).contains("timed out"))
        let mismatch = GatehouseError.discovery(.issuerMismatch(expected: "https://a", found: "https://b"))
        #expect(mismatch.description == "The discovery document names the issuer https://b, not https://a; check the issuer URL.")
        #expect(mismatch.localizedDescription(in: ["ja"]) == "ディスカバリー文書の発行者は https://a ではなく https://b です。発行者の URL を確認してください。")
    }

    @Test("a field's problem is in the app's language; a value its rule refuses gets the server's own words for it")
    func fieldProblems() {
        let name = FlowField(key: "name", kind: .text, label: "Name", required: true)
        #expect(name.localizedProblem(with: nil, in: ["de-AT"]) == "Name ist erforderlich.")
        #expect(name.localizedProblem(with: .text("a\nb"), in: ["fr"]) == "Name ne peut pas contenir de saut de ligne ni d’autre caractère de contrôle.")
        #expect(name.localizedProblem(with: .text("Zoë"), in: ["ja"]) == nil)
        let choice = FlowField(key: "factor", kind: .singleChoice, label: "Método", options: [FieldOption(value: "sms", label: "SMS")])
        #expect(choice.localizedProblem(with: .text("fax"), in: ["es"]) == "Elige una de las opciones para Método.")
        // The rule's message came from the server, already in the flow's language.
        let code = FlowField(key: "code", kind: .oneTimeCode, label: "Code", validation: FieldValidation(regex: "^[0-9]{6}$", message: "Sechs Ziffern."))
        #expect(code.localizedProblem(with: .text("12"), in: ["ar"]) == "Sechs Ziffern.")
        #expect(
            FlowField(key: "code", kind: .oneTimeCode, label: "رمز", validation: FieldValidation(regex: "^[0-9]{6}$")).localizedProblem(
                with: .text("12"), in: ["ar"]) == "رمز غير صالح.")
        #expect(name.localizedProblem(with: nil, in: ["tlh"]) == name.problem(with: nil), "English otherwise, as the protocol words it")
    }

    @Test("placeholders: %@ in order, %N$@ by position, %% a percent sign")
    func format() {
        #expect(StringCatalog.format("%@ and %@", ["a", "b"]) == "a and b")
        #expect(StringCatalog.format("%2$@ before %1$@", ["a", "b"]) == "b before a")
        #expect(StringCatalog.format("100%% of %@", ["it"]) == "100% of it")
        #expect(StringCatalog.format("%@ %@", ["only"]) == "only ")
        #expect(StringCatalog.format("trailing %", []) == "trailing %")
    }
}
