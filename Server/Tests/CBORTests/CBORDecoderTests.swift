import Testing

@testable import CBOR

extension Array where Element == UInt8 {
    /// Bytes from hex text; spaces are ignored.
    init(hex: String) {
        let digits = [Character](hex.filter { !$0.isWhitespace })
        self = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
    }
}

@Suite("CBOR")
struct CBORDecoderTests {
    /// RFC 8949 Appendix A, every example in the subset WebAuthn needs, with its value.
    static let examples: [(String, CBOR)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)), ("1818", .unsigned(24)),
        ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)), ("1a000f4240", .unsigned(1_000_000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(.max)),
        ("3bffffffffffffffff", .negative(.max)), ("20", CBOR(-1)), ("29", CBOR(-10)), ("3863", CBOR(-100)), ("3903e7", CBOR(-1000)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")), ("62c3bc", .text("ü")),
        ("63e6b0b4", .text("水")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([CBOR(1), CBOR(2), CBOR(3)])),
        ("8301820203820405", .array([CBOR(1), .array([CBOR(2), CBOR(3)]), .array([CBOR(4), CBOR(5)])])),
        (
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
            .array((1...25).map { CBOR($0) })
        ),
        ("a0", .map(CBORMap())), ("a201020304", .map(CBORMap([(CBOR(1), CBOR(2)), (CBOR(3), CBOR(4))]))),
        ("a26161016162820203", .map(CBORMap([(.text("a"), CBOR(1)), (.text("b"), .array([CBOR(2), CBOR(3)]))]))),
        ("826161a161626163", .array([.text("a"), .map(CBORMap([(.text("b"), .text("c"))]))])),
    ]

    @Test("RFC 8949 Appendix A: each example decodes to its value and the value encodes to the same bytes")
    func appendixA() throws {
        for (hex, value) in Self.examples {
            #expect(try CBORDecoder().decode([UInt8](hex: hex)) == value, "\(hex)")
            #expect(CBOREncoder.encode(value) == [UInt8](hex: hex), "\(hex)")
        }
    }

    @Test(
        "Appendix A's floats, tags, undefined, other simple values and indefinite lengths are refused as unsupported",
        arguments: [
            "f90000", "f93c00", "fa47c35000", "fb3ff199999999999a", "f7", "f0", "f8ff", "c074323031332d30332d32315432303a30343a30305a",
            "c11a514b67b0", "d74401020304", "5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "bf61610161629f0203ffff",
            "1c", "3d", "5e",
        ])
    func unsupported(hex: String) {
        #expect {
            try CBORDecoder().decode([UInt8](hex: hex))
        } throws: { error in
            if case .unsupported = error as? CBORError { true } else { false }
        }
    }

    @Test(
        "input that ends inside an item is truncated",
        arguments: ["", "18", "19 01", "1a 0000", "1b 00000000000000", "43 0102", "62 61", "83 0102", "a1 01", "a2 0102 03", "81", "59 0100 00", "85 01 02"])
    func truncated(hex: String) {
        #expect {
            try CBORDecoder().decode([UInt8](hex: hex))
        } throws: { error in
            if case .truncated = error as? CBORError { true } else { false }
        }
    }

    @Test(
        "lengths beyond the input or the item limit are refused before anything is allocated",
        arguments: ["5b ffffffffffffffff", "7a 7fffffff 61", "9b 7fffffffffffffff 00", "bb 0000000100000000 0000", "5a 00010001 00", "99 0401 00"])
    func oversizedLengths(hex: String) {
        #expect(throws: CBORError.lengthTooLarge(offset: 0)) { try CBORDecoder().decode([UInt8](hex: hex)) }
    }

    @Test("bytes after the item, a repeated map key and text that is not UTF-8 each have their error")
    func structure() {
        #expect(throws: CBORError.trailingBytes(offset: 1)) { try CBORDecoder().decode([UInt8](hex: "00 00")) }
        #expect(throws: CBORError.duplicateKey(offset: 3)) { try CBORDecoder().decode([UInt8](hex: "a2 01 02 01 03")) }
        #expect(throws: CBORError.duplicateKey(offset: 4)) { try CBORDecoder().decode([UInt8](hex: "a2 6161 01 6161 03")) }
        #expect(throws: CBORError.invalidUTF8(offset: 0)) { try CBORDecoder().decode([UInt8](hex: "62 c328")) }
        let (item, end) = try! CBORDecoder().decodePrefix([UInt8](hex: "a10102 ffff"))
        #expect(item == .map(CBORMap([(CBOR(1), CBOR(2))])) && end == 3, "a prefix leaves what follows to the caller")
    }

    @Test("nesting, container sizes and the input size are limited")
    func limits() throws {
        let sixteen = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder().decode(sixteen) }
        #expect(throws: CBORError.tooDeep(offset: 16)) { try CBORDecoder().decode([0x81] + sixteen) }
        let manyItems = [UInt8](hex: "99 0401") + [UInt8](repeating: 0, count: 1025)
        #expect(throws: CBORError.lengthTooLarge(offset: 0)) { try CBORDecoder().decode(manyItems) }
        let big = [UInt8](hex: "5a 00010000") + [UInt8](repeating: 0, count: 65536)
        #expect(throws: CBORError.tooLarge(size: big.count, limit: 65536)) { try CBORDecoder().decode(big) }
        var roomy = CBORDecoder()
        roomy.maxInputSize = 1 << 20
        #expect(try roomy.decode(big) == .bytes([UInt8](repeating: 0, count: 65536)))
    }

    @Test("random input never crashes or hangs: every one of 20,000 inputs decodes or fails with a CBORError")
    func randomInput() {
        var generator = SystemRandomNumberGenerator()
        var decoded = 0
        for round in 0..<20_000 {
            let count = Int.random(in: 0...(round % 10 == 0 ? 200 : 12), using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                _ = try CBORDecoder().decode(bytes)
                decoded += 1
            } catch {
                // Any CBORError is an answer; the typed throw means nothing else can arrive.
            }
        }
        #expect(decoded > 0, "some random inputs are valid CBOR (single small integers at least)")
    }
}
