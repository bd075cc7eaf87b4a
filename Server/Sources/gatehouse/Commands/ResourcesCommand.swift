import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse resources …`: manage the APIs that accept this server's access tokens (RFC 8707 resources).
struct ResourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resources",
        abstract: "Manage resources: the APIs access tokens are issued for.",
        discussion: """
            A client names a resource with `resource` on its authorization and token requests; the token it gets is for that \
            API only (its audience), with only the scopes the resource accepts.
            """,
        subcommands: [Add.self, Update.self, List.self, Show.self, Delete.self]
    )

    /// The settings `add` and `update` share.
    struct Settings: ParsableArguments {
        @Option(help: "The name people read on the consent page.")
        var name: String?
        @Option(
            name: .customLong("scope"),
            help: ArgumentHelp("A scope the API accepts, as NAME=DESCRIPTION (notes:read=Read your notes); repeat for each.", valueName: "name=description"))
        var scopes: [String] = []
        @Option(help: "Its access tokens: jwt (RFC 9068, checked offline) or opaque (introspected).")
        var format: Resource.TokenFormat?
        @Option(
            name: .customLong("token-alg"),
            help: "What signs its JWT access tokens: RS256 (the default, which every resource server accepts) or ES256 (cheaper to sign).")
        var tokenAlgorithm: Resource.SigningAlgorithm?
        @Option(help: "Seconds its access tokens live (at most token_lifetimes.access_token; 0: the server's).")
        var lifetime: Int64?
        @Flag(
            name: .customLong("require-dpop"), inversion: .prefixedNo,
            help: "Issue its tokens only bound to a DPoP key (RFC 9449), or not (the default).")
        var requireDPoP: Bool?
        @Option(
            name: .customLong("client"),
            help: "A client that may ask for it; repeat for each. None: any client on a person's behalf (a client acting for itself must be listed).")
        var clients: [String] = []
        @Option(name: .customLong("introspection-client"), help: "A confidential client the API authenticates as to introspect its tokens; repeat for each.")
        var introspectionClients: [String] = []

        /// `resource` with the settings given here in place of its own.
        func applied(to resource: Resource) throws -> Resource {
            var changed = resource
            if let name { changed.name = name }
            if !scopes.isEmpty {
                changed.scopes = try scopes.map { text in
                    guard let equals = text.firstIndex(of: "=") else {
                        throw ValidationError("Give each --scope as NAME=DESCRIPTION (notes:read=Read your notes).")
                    }
                    return Resource.Scope(name: String(text[..<equals]), description: String(text[text.index(after: equals)...]))
                }
            }
            if let format { changed.tokenFormat = format }
            if let tokenAlgorithm { changed.tokenAlgorithm = tokenAlgorithm }
            if let lifetime { changed.accessTokenLifetime = lifetime == 0 ? nil : lifetime }
            if let requireDPoP { changed.requiresDPoP = requireDPoP }
            if !clients.isEmpty { changed.allowedClients = clients }
            if !introspectionClients.isEmpty { changed.introspectionClients = introspectionClients }
            return changed
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a resource.")

        @Argument(help: "Its identifier, the tokens' audience: an https URL (http on loopback) or a URN.")
        var identifier: String
        @OptionGroup var settings: Settings
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            guard let name = settings.name else { throw ValidationError("Give the resource a --name (people read it on the consent page).") }
            let resource = try settings.applied(to: Resource(id: identifier, name: name))
            let created = try await store.withOperations { try await $0.createResource(resource) }
            if output.json { return try JSONOutput.print(created) }
            print("Added resource \(created.id) (\(List.format(of: created)) access tokens).")
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a resource's settings; those not given stay.")

        @Argument(help: "The resource's identifier.")
        var identifier: String
        @OptionGroup var settings: Settings
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let updated = try await store.withOperations { operations in
                guard let current = try await operations.resources().first(where: { $0.id == identifier }) else {
                    throw CommandError("There is no resource \(identifier); list them with `gatehouse resources list`.")
                }
                return try await operations.updateResource(try settings.applied(to: current))
            }
            if output.json { return try JSONOutput.print(updated) }
            print("Updated resource \(updated.id).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List resources.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let resources = try await store.withOperations { try await $0.resources() }
            if output.json { return try JSONOutput.print(resources) }
            guard !resources.isEmpty else { return print("No resources yet. Add one with `gatehouse resources add`.") }
            var table = TextTable(headers: ["IDENTIFIER", "NAME", "FORMAT", "LIFETIME", "DPOP", "CLIENTS", "SCOPES"])
            table.rows = resources.map {
                [
                    $0.id, $0.name, Self.format(of: $0), $0.accessTokenLifetime.map { "\($0) s" } ?? "server's", $0.requiresDPoP ? "required" : "optional",
                    $0.allowedClients.isEmpty ? "any" : $0.allowedClients.joined(separator: " "), $0.scopeNames.joined(separator: " "),
                ]
            }
            print(table.render())
        }

        /// `jwt RS256`, `jwt ES256` or `opaque`.
        static func format(of resource: Resource) -> String {
            resource.tokenFormat == .jwt ? "jwt \(resource.tokenAlgorithm.rawValue)" : resource.tokenFormat.rawValue
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one resource with its scopes' descriptions.")
        @Argument(help: "The resource's identifier.")
        var identifier: String
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            guard let resource = try await store.withOperations({ try await $0.resources() }).first(where: { $0.id == identifier }) else {
                throw CommandError("There is no resource \(identifier); list them with `gatehouse resources list`.")
            }
            if output.json { return try JSONOutput.print(resource) }
            print("\(resource.name) — \(resource.id)")
            print(
                "Access tokens: \(List.format(of: resource)), \(resource.accessTokenLifetime.map { "\($0) s" } ?? "the server's lifetime")"
                    + (resource.requiresDPoP ? ", DPoP-bound only" : ""))
            print("Clients: \(resource.allowedClients.isEmpty ? "any, on a person's behalf" : resource.allowedClients.joined(separator: ", "))")
            if !resource.introspectionClients.isEmpty { print("Introspected by: \(resource.introspectionClients.joined(separator: ", "))") }
            for scope in resource.scopes { print("  \(scope.name): \(scope.description)") }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a resource; every access token issued for it stops working.")
        @Argument(help: "The resource's identifier.")
        var identifier: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { try await $0.deleteResource(identifier) }
            print("Removed resource \(identifier); its access tokens are revoked.")
        }
    }
}

extension Resource.TokenFormat: ExpressibleByArgument {}
extension Resource.SigningAlgorithm: ExpressibleByArgument {}
