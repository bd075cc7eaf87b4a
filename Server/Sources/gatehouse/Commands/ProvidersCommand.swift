import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseServer

/// `gatehouse providers`: the other identity providers people may sign in with, as configured.
struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the other identity providers people may sign in with, or check that they are reachable.",
        subcommands: [List.self, Check.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the configured identity providers and the redirect URI to register at each.")

        @Option(help: "The server's issuer, when the configuration does not name it (serve --issuer or --port).")
        var issuer: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        struct Summary: Encodable {
            let id, name, kind: String
            let issuer: String?
            let clientID, redirectURI: String
            let trustEmail, trustMFA: Bool
            let newIdentities: String

            enum CodingKeys: String, CodingKey {
                case id, name, kind, issuer
                case clientID = "client_id"
                case redirectURI = "redirect_uri"
                case trustEmail = "trust_email"
                case trustMFA = "trust_mfa"
                case newIdentities = "new_identities"
            }
        }

        func run() async throws {
            let configuration = try store.configuration(overrides: issuer.map { [.issuer: $0] } ?? [:])
            try configuration.validate()
            let redirect = configuration.resolvedIssuer + "/login/idp/callback"
            let list = configuration.identityProviders.map {
                Summary(
                    id: $0.id, name: $0.name, kind: $0.kind.rawValue, issuer: $0.issuer ?? $0.authorizationEndpoint, clientID: $0.clientID,
                    redirectURI: redirect, trustEmail: $0.trustEmail, trustMFA: $0.trustMFA, newIdentities: $0.newIdentities.rawValue)
            }
            if output.json { return try JSONOutput.print(list) }
            guard !list.isEmpty else { return print("No identity providers are configured (identity_providers in the configuration file).") }
            var table = TextTable(headers: ["ID", "NAME", "KIND", "ISSUER", "CLIENT ID", "NEW IDENTITIES"])
            table.rows = list.map { [$0.id, $0.name, $0.kind, $0.issuer ?? "", $0.clientID, $0.newIdentities] }
            print(table.render())
            print("Register this redirect URI at each provider: \(redirect)")
            if configuration.issuer == nil {
                // Only the issuer says where the server is reached: `serve --port` or `--issuer` may differ from this.
                print(
                    "This assumes the issuer \(configuration.resolvedIssuer) (no issuer is configured); if the server runs with another --issuer or "
                        + "--port, register ISSUER/login/idp/callback, or run this command with --issuer.")
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch each provider's discovery document and keys now, and say what is wrong.",
            discussion: "Exits non-zero when any provider has a problem.")

        @Argument(help: "Check only this provider.")
        var id: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let configuration = try store.configuration()
            let providers = configuration.identityProviders.filter { id == nil || $0.id == id }
            if let id, providers.isEmpty { throw CommandError("No identity provider is configured as \(id).") }
            var checks: [IdentityProviderCheck] = []
            for provider in providers { checks.append(await IdentityProviderCheck.run(provider, issuer: configuration.resolvedIssuer)) }
            if output.json {
                try JSONOutput.print(checks)
            } else {
                for check in checks {
                    print(check.problems.isEmpty ? "✓ \(check.id): ready" : "✗ \(check.id):")
                    for problem in check.problems { print("    \(problem)") }
                    if check.problems.isEmpty {
                        print("    authorization: \(check.authorizationEndpoint ?? "")\n    token: \(check.tokenEndpoint ?? "")")
                    }
                }
                if checks.isEmpty { print("No identity providers are configured.") }
            }
            if checks.contains(where: { !$0.problems.isEmpty }) { throw ExitCode(1) }
        }
    }
}
