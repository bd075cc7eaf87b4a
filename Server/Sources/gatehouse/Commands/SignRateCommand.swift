import ArgumentParser
import Foundation
import GatehouseFoundation

/// `gatehouse sign-rate`: how many token signatures this machine makes per second, per algorithm.
struct SignRateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-rate",
        abstract: "Measure RS256 and ES256 signatures per second on every core, with the signers the server uses.",
        discussion: """
            Every token response that carries a new ID token or JWT access token costs one signature, so this is
            the ceiling of those grants. "RS256 (swift-crypto)" is the signer Gatehouse replaced with OpenSSL's
            libcrypto on Linux, measured for comparison; compare both with `openssl speed rsa2048`.
            """
    )

    @Option(help: "Seconds to measure each signer for.")
    var seconds: Double = 3
    @Option(help: "Signatures at once (default: one per core).")
    var concurrency: Int?
    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        let signaturesPerSecond: [String: Double]
        let concurrency: Int

        enum CodingKeys: String, CodingKey {
            case concurrency
            case signaturesPerSecond = "signatures_per_second"
        }
    }

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600.") }
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 256.") }
    }

    func run() async throws {
        let lanes = concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        var rates: [String: Double] = [:]
        for signer in SignatureRate.Signer.allCases {
            rates[signer.rawValue] = try await SignatureRate.measure(signer, seconds: seconds, lanes: lanes)
        }
        if output.json { return try JSONOutput.print(Result(signaturesPerSecond: rates, concurrency: lanes)) }
        for signer in SignatureRate.Signer.allCases {
            let name = signer.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)
            print(name + String(format: "%10.0f signatures per second (%d at once)", rates[signer.rawValue] ?? 0, lanes))
        }
    }
}
