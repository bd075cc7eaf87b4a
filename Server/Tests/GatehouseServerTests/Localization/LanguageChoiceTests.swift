import Testing

@testable import GatehouseFoundation

/// The language a person is spoken to in: `ui_locales`, then their preference, then `Accept-Language`, then the
/// operator's default.
@Suite("Language choice")
struct LanguageChoiceTests {
    @Test("Accept-Language is read by quality, then order; q=0 and * are left out (RFC 9110 §12.5.4)")
    func acceptLanguage() {
        #expect(LanguageChoice.ranges(in: "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ["fr-CH", "fr", "en", "de"])
        #expect(LanguageChoice.ranges(in: "en;q=0.5, de") == ["de", "en"])
        #expect(LanguageChoice.ranges(in: "de;q=0, en") == ["en"])
        #expect(LanguageChoice.ranges(in: "") == [])
        #expect(LanguageChoice.ranges(in: ";q=1,,   ") == [])
    }

    @Test("the first shipped language wins, in the order of precedence")
    func precedence() {
        #expect(LanguageChoice(requested: ["de"], preference: "en", acceptLanguage: "en").language(default: .english) == .german)
        #expect(LanguageChoice(requested: ["xx", "tlh"], preference: "de-AT", acceptLanguage: "en").language(default: .english) == .german)
        #expect(LanguageChoice(preference: nil, acceptLanguage: "xx, de-DE;q=0.9").language(default: .english) == .german)
        #expect(LanguageChoice(acceptLanguage: "xx").language(default: .german) == .german)
        #expect(LanguageChoice().language(default: .english) == .english)
    }
}
