import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The guides in `docs/` are where operators look settings up: every key the configuration file takes is written
/// there, and every key the settings table of "Running the server" (`docs/server.md`) names is one the server knows.
@Suite("Settings documented in the guides")
struct DocumentedSettingsTests {
    static func keys<Keys: CodingKey & CaseIterable>(_ type: Keys.Type) -> [String] { Keys.allCases.map(\.stringValue) }

    /// Every key of the configuration file, as `section.key` paths (top-level keys alone).
    static var allPaths: [String] {
        let delivery =
            keys(DeliverySettings.CodingKeys.self) + keys(SMTPSettings.CodingKeys.self).map { "smtp.\($0)" }
            + keys(WebhookSettings.CodingKeys.self).map { "webhook.\($0)" }
        let sections: [String: [String]] = [
            "password_hashing": keys(PasswordHashingParameters.CodingKeys.self),
            "token_lifetimes": keys(TokenLifetimes.CodingKeys.self),
            "login_throttling": keys(AttemptLimit.CodingKeys.self),
            "code_guesses": keys(AttemptLimit.CodingKeys.self),
            "source_throttling": keys(AttemptLimit.CodingKeys.self),
            "password_policy": keys(PasswordPolicy.CodingKeys.self),
            "sign_on": keys(SignOnPolicy.CodingKeys.self),
            "client_sign_on": [],
            "registration": keys(RegistrationPolicy.CodingKeys.self),
            "account": keys(AccountPolicy.CodingKeys.self),
            "one_time_codes": keys(OneTimeCodePolicy.CodingKeys.self),
            "courier": keys(CourierConfiguration.CodingKeys.self).filter { !["email", "sms", "voice"].contains($0) }
                + ["email", "sms", "voice"].flatMap { channel in delivery.map { "\(channel).\($0)" } },
            "authenticator": keys(AuthenticatorPolicy.CodingKeys.self),
            "webauthn": keys(WebAuthnPolicy.CodingKeys.self),
            "connections": keys(ConnectionPolicy.CodingKeys.self),
            "trusted_proxies": keys(TrustedProxies.CodingKeys.self),
            "audit": keys(AuditPolicy.CodingKeys.self) + keys(AuditWebhook.CodingKeys.self).map { "webhook.\($0)" },
            "metrics": keys(MetricsPolicy.CodingKeys.self),
            "tracing": keys(TracingPolicy.CodingKeys.self),
            "housekeeping": keys(HousekeepingPolicy.CodingKeys.self),
            "dpop": keys(DPoPPolicy.CodingKeys.self),
            "backchannel_logout": keys(LogoutDeliveryPolicy.CodingKeys.self),
            "dynamic_registration": keys(DynamicRegistrationPolicy.CodingKeys.self),
            "client_metadata_documents": keys(ClientMetadataDocumentPolicy.CodingKeys.self),
            "identity_providers": keys(IdentityProvider.CodingKeys.self)
                + keys(IdentityProvider.ClaimMapping.CodingKeys.self).map { "claims.\($0)" },
        ]
        return keys(ServerConfiguration.CodingKeys.self).flatMap { top in [top] + (sections[top] ?? []).map { "\(top).\($0)" } }
    }

    /// The repository's `docs/` folder.
    static let guides = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../docs").standardized

    /// Every guide, one after the other.
    static func allGuides() throws -> String {
        let pages = try FileManager.default.contentsOfDirectory(atPath: guides.path).filter { $0.hasSuffix(".md") }.sorted()
        return try pages.map { try String(contentsOf: guides.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
    }

    /// The guide to running the server, which holds the settings table.
    static func serverGuide() throws -> String {
        try String(contentsOf: guides.appendingPathComponent("server.md"), encoding: .utf8)
    }

    /// The spans in backticks of `text`.
    static func codeSpans(_ text: String) -> Set<String> {
        Set(text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    @Test("every key of the configuration file is written in the guides, by its path or under its section")
    func everyKeyDocumented() throws {
        let spans = Self.codeSpans(try Self.allGuides())
        // `a.b.c` is documented as written, or by its last part (`c`) in the text or an example about its section.
        let missing = Self.allPaths.filter { path in
            let leaf = String(path.split(separator: ".").last!)
            return !spans.contains(path) && !spans.contains(leaf) && !spans.contains { $0.contains("\"\(leaf)\":") }
        }
        #expect(missing.isEmpty, "not in docs/: \(missing.joined(separator: ", "))")
    }

    @Test("the settings table's environment variables are the ones the server reads, each beside its file key")
    func environmentVariables() throws {
        let rows = try Self.serverGuide().split(separator: "\n").filter { $0.hasPrefix("| `--") || $0.hasPrefix("| — |") }
        var documented: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            for variable in Self.codeSpans(cells[1]) where variable != "GATEHOUSE_CONFIG" {
                documented[variable] = Self.codeSpans(cells[2]).first
            }
        }
        let read = Dictionary(uniqueKeysWithValues: ServerSetting.allCases.map { ($0.environmentName, $0.fileKey) })
        #expect(documented == read)
    }

    @Test("every key the settings table names is one the server reads")
    func tableKeysKnown() throws {
        let rows = try Self.serverGuide().split(separator: "\n").filter { $0.hasPrefix("| `--") || $0.hasPrefix("| — |") }
        #expect(rows.count >= 8)
        let known = Set(Self.allPaths)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            for key in Self.codeSpans(cells[2]) {
                #expect(known.contains(key), "the settings table names \(key), which the configuration file does not take")
            }
        }
    }
}
