import Testing

@testable import GatehouseFoundation

/// The catalogs' message syntax: ICU MessageFormat's plain arguments and plurals, with ICU's apostrophe rules.
@Suite("Message format")
struct MessageFormatTests {
    @Test("arguments are put in by name, and a missing one is left empty")
    func arguments() throws {
        let message = try MessageFormat("Signing in as {username} to {client}.")
        #expect(message.argumentNames == ["username", "client"])
        #expect(message.format(["username": "ada", "client": "Notes"], in: .english) == "Signing in as ada to Notes.")
        #expect(message.format(["client": "Notes"], in: .english) == "Signing in as  to Notes.")
    }

    @Test("right to left, each value is isolated so its own direction cannot reorder the sentence")
    func isolatesInRightToLeft() throws {
        let message = try MessageFormat("{client} asks")
        #expect(message.format(["client": "Notes"], in: .arabic) == "\u{2068}Notes\u{2069} asks")
        #expect(message.format(["client": "Notes"], in: .german) == "Notes asks")
    }

    @Test("plurals choose an exact count first, then the language's form, then other; # is the count")
    func plurals() throws {
        let message = try MessageFormat("Wait {seconds, plural, =0 {no time} one {# second} other {# seconds}}.")
        #expect(message.format(["seconds": "0"], in: .english) == "Wait no time.")
        #expect(message.format(["seconds": "1"], in: .english) == "Wait 1 second.")
        #expect(message.format(["seconds": "30"], in: .german) == "Wait 30 seconds.")
        #expect(message.format(["seconds": "soon"], in: .english) == "Wait soon seconds.")
    }

    @Test("an apostrophe is text unless it quotes a brace; two are one")
    func apostrophes() throws {
        #expect(try MessageFormat("Don't use '@'.").format([:], in: .english) == "Don't use '@'.")
        #expect(try MessageFormat("Braces: '{literal}' and ''{name}''").format(["name": "x"], in: .english) == "Braces: {literal} and 'x'")
        #expect(try MessageFormat("{n, plural, other {'#' is # here}}").format(["n": "3"], in: .english) == "# is 3 here")
    }

    @Test(
        "broken syntax is refused with where it breaks",
        arguments: [
            "{unclosed", "a } too many", "{n, plural, one {x}}", "{n, select, a {x} other {y}}", "{n, plural, few {x} other {y}", "{}",
            "{n, plural, some {x} other {y}}",
        ])
    func refused(pattern: String) {
        #expect(throws: MessageFormat.Invalid.self) { try MessageFormat(pattern) }
    }

    /// CLDR's cardinal rules (unicode.org/cldr/charts, "Language Plural Rules"), their sample integers.
    @Test("plural forms follow CLDR's rules")
    func pluralRules() {
        #expect([0, 1, 2, 5].map { PluralCategory($0, in: .english) } == [.other, .one, .other, .other])
        #expect([0, 1, 2].map { PluralCategory($0, in: .german) } == [.other, .one, .other])
        #expect([0, 1, 2, 1_000_000].map { PluralCategory($0, tag: "fr") } == [.one, .one, .other, .many])
        #expect([0, 1, 2, 1_000_000].map { PluralCategory($0, tag: "es") } == [.other, .one, .other, .many])
        #expect([0, 1, 100].map { PluralCategory($0, tag: "ja") } == [.other, .other, .other])
        #expect(
            [0, 1, 2, 3, 10, 11, 99, 100, 102, 103, 111].map { PluralCategory($0, tag: "ar") }
                == [.zero, .one, .two, .few, .few, .many, .many, .other, .other, .few, .many])
    }
}
