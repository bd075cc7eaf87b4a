import Foundation
import GatehouseFoundation

/// What a resource's registration must satisfy, checked the same way by every way in (the admin API, the command line).
public enum ResourceRules {
    /// The longest identifier: it is sent with every authorization and token request, and is every token's audience.
    public static let maximumIdentifierLength = 512
    /// The most scopes one resource accepts.
    public static let maximumScopes = 100

    /// Checks every part of `resource`; `longestLifetime` is the server's own access-token lifetime, which a resource
    /// may shorten but not exceed (its tokens are checked against keys the server publishes for that long).
    public static func validate(_ resource: Resource, longestLifetime: Int64) throws {
        try validateIdentifier(resource.id)
        let name = resource.name.trimmingCharacters(in: .whitespaces)
        guard (1...200).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ConfigurationError("The resource's name must be 1 to 200 characters without line breaks.")
        }
        guard resource.scopes.count <= maximumScopes else {
            throw ConfigurationError("A resource accepts at most \(maximumScopes) scopes.")
        }
        var seen: Set<String> = []
        for scope in resource.scopes {
            try validateScope(scope)
            guard seen.insert(scope.name).inserted else { throw ConfigurationError("The scope \(scope.name) is listed twice.") }
        }
        if let lifetime = resource.accessTokenLifetime, !(60...longestLifetime).contains(lifetime) {
            throw ConfigurationError(
                "The access-token lifetime must be 60 to \(longestLifetime) seconds (token_lifetimes.access_token); leave it out for the server's.")
        }
        for client in resource.allowedClients + resource.introspectionClients { try ClientRegistrationRules.validateClientID(client) }
    }

    /// An absolute https URL (http only on a loopback host) or a URN, without a fragment (RFC 8707 §2) or whitespace.
    public static func validateIdentifier(_ identifier: String) throws {
        guard (1...maximumIdentifierLength).contains(identifier.utf8.count), !identifier.contains(where: { $0.isWhitespace || $0.isNewline }),
            !identifier.contains("#")
        else {
            throw ConfigurationError(
                "The resource identifier \"\(identifier.prefix(80))\" must be 1 to \(maximumIdentifierLength) bytes, without spaces or a fragment (#).")
        }
        if identifier.lowercased().hasPrefix("urn:") {
            guard identifier.split(separator: ":", omittingEmptySubsequences: false).count >= 3 else {
                throw ConfigurationError("The URN \"\(identifier)\" needs a namespace and a name (urn:example:notes).")
            }
            return
        }
        guard let url = URL(string: identifier), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw ConfigurationError("The resource identifier \"\(identifier.prefix(80))\" is neither an absolute URL nor a URN.")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw ConfigurationError("The resource identifier \"\(identifier.prefix(80))\" must use https (http only on a loopback host).")
        }
    }

    /// A scope token (RFC 6749 §3.3) of at most 128 characters, not one of the server's own scopes, described.
    public static func validateScope(_ scope: Resource.Scope) throws {
        let valid = scope.name.unicodeScalars.allSatisfy { $0.value == 0x21 || (0x23...0x5B).contains($0.value) || (0x5D...0x7E).contains($0.value) }
        guard (1...128).contains(scope.name.count), valid else {
            throw ConfigurationError("The scope \"\(scope.name.prefix(80))\" must be 1 to 128 visible ASCII characters without quotes or backslashes.")
        }
        guard !ClientRegistrationRules.knownScopes.contains(scope.name) else {
            throw ConfigurationError("The scope \(scope.name) is one of the server's own; name the resource's scopes differently (notes:read).")
        }
        let description = scope.description.trimmingCharacters(in: .whitespaces)
        guard (1...300).contains(description.count), !description.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ConfigurationError("The scope \(scope.name) needs a description of 1 to 300 characters without line breaks (people read it on consent).")
        }
    }
}
