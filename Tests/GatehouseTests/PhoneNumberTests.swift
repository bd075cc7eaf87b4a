import Foundation
import GatehouseProtocol
import Testing

/// The one reader of phone numbers the server and the SDK share.
@Suite("Phone numbers")
struct PhoneNumberTests {
    @Test(
        "numbers as people type them read as E.164",
        arguments: [
            ("+14155550100", "+14155550100"),
            ("+1 (415) 555-0100", "+14155550100"),
            ("+44 (0)20 7946 0958", "+442079460958"),
            ("0049 30/1234.5678", "+493012345678"),
            ("  +33 6 12 34 56 78 ", "+33612345678"),
        ])
    func reads(typed: String, e164: String) throws {
        let number = try #require(PhoneNumber(typed))
        #expect(number.e164 == e164 && number.description == e164)
    }

    @Test(
        "text without a country code, with letters, too short or too long, or a country code of 0 is not a number",
        arguments: ["4155550100", "(415) 555-0100", "+1 415 CALL NOW", "+123456", "+1234567890123456", "+0 415 555 0100", "", "+", "+1 415 ٥٥٥ 0100"])
    func refuses(typed: String) {
        #expect(PhoneNumber(typed) == nil)
    }

    @Test("the field pattern admits every number the reader accepts, and JSON carries E.164")
    func patternAndCoding() throws {
        let pattern = try Regex("^(?:\(PhoneNumber.fieldPattern))$")
        for typed in ["+14155550100", "+1 (415) 555-0100", "+44 (0)20 7946 0958", "0049 30/1234.5678"] {
            #expect(typed.wholeMatch(of: pattern) != nil, "\(typed)")
        }
        #expect("4155550100".wholeMatch(of: pattern) == nil)
        let decoded = try JSONDecoder().decode([PhoneNumber].self, from: Data(#"["+1 (415) 555-0100"]"#.utf8))
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == #"["+14155550100"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PhoneNumber].self, from: Data(#"["call me"]"#.utf8)) }
    }
}
