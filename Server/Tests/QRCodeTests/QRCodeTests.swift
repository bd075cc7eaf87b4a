import Foundation
import Testing

@testable import QRCode

/// Every symbol is checked by decoding it with an independent reader, zbar (`zbarimg` from zbar-tools).
@Suite("QR code encoder")
struct QRCodeTests {
    /// The most bytes version `version` holds at `level`.
    private func capacity(_ version: Int, _ level: ErrorCorrectionLevel) -> Int {
        (QRCode.dataCodewordCount(version, level) * 8 - 4 - (version <= 9 ? 8 : 16)) / 8
    }

    private func text(length: Int, seed: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/?=&.-_")
        return String((0..<length).map { alphabet[($0 * 7 + seed * 13 + $0 / 5) % alphabet.count] })
    }

    @Test("every version at level M, filled to capacity, decodes with zbar and uses exactly that version")
    func everyVersionMedium() throws {
        for version in 1...40 {
            let payload = text(length: capacity(version, .medium), seed: version)
            let code = try QRCode(encoding: payload, errorCorrection: .medium)
            #expect(code.version == version)
            #expect(code.size == 17 + 4 * version)
            #expect(try ZBar.decode(code) == payload, "version \(version)")
        }
    }

    @Test("levels L, Q and H decode across small, medium and the largest versions", arguments: [ErrorCorrectionLevel.low, .quartile, .high])
    func otherLevels(level: ErrorCorrectionLevel) throws {
        for version in [1, 2, 5, 7, 10, 14, 27, 32, 40] {
            let payload = text(length: capacity(version, level), seed: version + level.rawValue)
            let code = try QRCode(encoding: payload, errorCorrection: level)
            #expect(code.version == version)
            #expect(try ZBar.decode(code) == payload, "version \(version) level \(level)")
        }
    }

    @Test("one byte past a version's capacity moves to the next version")
    func versionBoundary() throws {
        let code = try QRCode(encoding: text(length: capacity(9, .medium) + 1, seed: 1), errorCorrection: .medium)
        #expect(code.version == 10)
        #expect(try ZBar.decode(code) == text(length: capacity(9, .medium) + 1, seed: 1))
    }

    @Test("UTF-8 text and an otpauth URI round-trip")
    func utf8AndURI() throws {
        let uri = "otpauth://totp/Gatehouse:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Gatehouse&algorithm=SHA1&digits=6&period=30"
        #expect(try ZBar.decode(try QRCode(encoding: uri)) == uri)
        let text = "Grüße, Zoë — 東京"
        #expect(try ZBar.decode(try QRCode(encoding: text)) == text)
    }

    @Test("text longer than version 40 holds is refused with a readable error")
    func tooLong() {
        #expect(throws: QRCodeError.self) { try QRCode(encoding: String(repeating: "x", count: 2332), errorCorrection: .medium) }
        let error = #expect(throws: QRCodeError.self) { try QRCode(encoding: String(repeating: "x", count: 3000), errorCorrection: .low) }
        #expect(error?.description.contains("3000 bytes do not fit") == true)
    }

    @Test("Reed–Solomon matches the worked example for HELLO WORLD at 1-M")
    func reedSolomonVector() {
        // Data codewords of "HELLO WORLD" (alphanumeric, version 1-M) and their published error-correction codewords.
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test("SVG and terminal renderings draw the same modules")
    func renderings() throws {
        let code = try QRCode(encoding: "https://id.example/qr?code=abc")
        let svg = code.svg(title: "Scan <me>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        #expect(svg.contains("<title>Scan &lt;me&gt;</title>"))
        // Every dark module is covered by exactly one run of the path.
        let path = try #require(svg.split(separator: "<path d=\"").last?.split(separator: "\"").first)
        let covered = path.split(separator: "M").reduce(0) { total, run in total + Int(run.split(separator: "h")[1].split(separator: "v")[0])! }
        #expect(covered == code.modules.filter { $0 }.count)

        let plain = code.terminalText(quietZone: 2, colored: false).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(plain.count == (code.size + 4 + 1) / 2)
        #expect(plain.allSatisfy { $0.count == code.size + 4 })
        // Row 2 of the text holds module rows 2 and 3 (quiet zone 2 → symbol rows 0 and 1): the top finder edges.
        let firstSymbolLine = Array(plain[1])
        for x in 0..<code.size {
            let expected: Character =
                switch (code[x, 0], code[x, 1]) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            #expect(firstSymbolLine[x + 2] == expected)
        }
        #expect(code.terminalText().hasPrefix("\u{1B}[30;107m"))
    }
}

/// Runs the zbar command-line reader on a symbol.
enum ZBar {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "zbarimg was not found; install zbar-tools (apt-get install zbar-tools) to run the QR tests." }
    }

    static func decode(_ code: QRCode) throws -> String {
        guard let executable = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg", "/opt/homebrew/bin/zbarimg"].first(where: FileManager.default.isExecutableFile)
        else { throw Missing() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pgm")
        try Data(code.portableGraymap()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--raw", "--quiet", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
