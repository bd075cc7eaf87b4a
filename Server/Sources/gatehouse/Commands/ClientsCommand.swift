import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import GatehouseServer

/// `gatehouse clients …`: manage the applications that may sign users in.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "Manage client applications.",
        subcommands: [Add.self, List.self, Delete.self]
    )

    /// A client as printed: never the secret hash.
    struct Summary: Encodable {
        var id: String
        var name: String?
        var type: String
        var redirectURIs: [String]
        var postLogoutRedirectURIs: [String]
        var scopes: [String]
        var idTokenAlgorithm: String
        var requiresPKCE: Bool
        var deviceGrant: Bool
        var requiresDPoP: Bool
        var thirdParty: Bool
        var logoURI, homepage: String?
        var tokenExchange: TokenExchangePolicy?
        var authenticationMethod: ClientAuthenticationMethod
        var jwksURI: String?
        var jwks: JSONWebKeySet?
        var backchannelLogoutURI, frontchannelLogoutURI: String?
        var requireSignedRequestObject, requirePushedAuthorizationRequests: Bool
        var profile: SecurityProfile?

        init(_ client: AdminClient) {
            id = client.id
            name = client.name
            type = client.isPublic ? "public" : "confidential"
            authenticationMethod = client.authenticationMethod
            jwksURI = client.jwksURI
            jwks = client.jwks
            backchannelLogoutURI = client.backchannelLogoutURI
            frontchannelLogoutURI = client.frontchannelLogoutURI
            requireSignedRequestObject = client.requireSignedRequestObject
            requirePushedAuthorizationRequests = client.requirePushedAuthorizationRequests
            profile = client.profile
            redirectURIs = client.redirectURIs
            postLogoutRedirectURIs = client.postLogoutRedirectURIs
            scopes = client.scopes
            idTokenAlgorithm = client.idTokenAlgorithm
            requiresPKCE = client.requirePKCE
            deviceGrant = client.deviceGrant
            requiresDPoP = client.requireDPoP
            thirdParty = client.thirdParty
            logoURI = client.logoURI
            homepage = client.homepage
            tokenExchange = client.tokenExchange
        }

        enum CodingKeys: String, CodingKey {
            case id, name, type, scopes, jwks, profile
            case authenticationMethod = "token_endpoint_auth_method"
            case jwksURI = "jwks_uri"
            case backchannelLogoutURI = "backchannel_logout_uri"
            case frontchannelLogoutURI = "frontchannel_logout_uri"
            case requireSignedRequestObject = "require_signed_request_object"
            case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
            case redirectURIs = "redirect_uris"
            case postLogoutRedirectURIs = "post_logout_redirect_uris"
            case idTokenAlgorithm = "id_token_signed_response_alg"
            case requiresPKCE = "require_pkce"
            case deviceGrant = "device_grant"
            case requiresDPoP = "require_dpop"
            case thirdParty = "third_party"
            case logoURI = "logo_uri"
            case homepage = "client_uri"
            case tokenExchange = "token_exchange"
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a client.",
            discussion: """
                Choose --public for apps that cannot keep a secret (they must use PKCE), --secret-stdin or --generate-secret for a confidential \
                client with a secret, or --auth-method private_key_jwt with --jwks-uri or --jwks-file for one that signs assertions with its own \
                key (no shared secret). --auth-method client_secret_jwt keeps the secret but sends only assertions MACed with it.
                """
        )

        @Argument(help: "The client id.")
        var clientID: String
        @Option(name: .customLong("redirect-uri"), parsing: .upToNextOption, help: "Allowed redirect URIs, matched exactly.")
        var redirectURIs: [String] = []
        @Option(name: .customLong("post-logout-redirect-uri"), parsing: .upToNextOption, help: "Allowed redirect URIs after sign-out.")
        var postLogoutRedirectURIs: [String] = []
        @Option(name: .customLong("scope"), parsing: .upToNextOption, help: "Scopes the client may request (default: openid profile email offline_access).")
        var scopes: [String] = []
        @Option(help: "A display name shown on the sign-in page.")
        var name: String?
        @Option(help: "ID token signing algorithm: RS256 or ES256 (default: RS256; ES256 for --profile fapi2, which allows no RS256).")
        var idTokenAlg: String?

        /// The algorithm asked for, else the one the profile allows (FAPI 2.0: ES256), else RS256.
        var idTokenAlgorithm: String { idTokenAlg ?? (profile == .fapi2 ? "ES256" : "RS256") }
        @Flag(help: "A public client (mobile, desktop or single-page app): no secret, PKCE required.")
        var `public` = false
        @Flag(help: "Read the client secret (at least 32 characters) from standard input.")
        var secretStdin = false
        @Flag(help: "Generate a client secret and print it once.")
        var generateSecret = false
        @Flag(help: "Let this confidential client skip PKCE (a legacy client that cannot send code_challenge; RFC 9700 advises against it).")
        var allowWithoutPKCE = false
        @Flag(
            name: .customLong("device-grant"),
            help: "Allow the device authorization grant (RFC 8628) for a TV or a terminal; such a client needs no redirect URI.")
        var deviceGrant = false
        @Flag(name: .customLong("require-dpop"), help: "Require DPoP proofs (RFC 9449) on every token request, so all its tokens are bound to a key.")
        var requireDPoP = false
        @Flag(
            name: .customLong("third-party"),
            help: "Someone else's application: people allow it what it asks for on a consent page before it gets a code.")
        var thirdParty = false
        @Option(name: .customLong("logo-uri"), help: "The logo the consent page shows (https).")
        var logoURI: String?
        @Option(name: .customLong("client-uri"), help: "The application's home page, linked from the consent page (https).")
        var homepage: String?
        @Option(
            name: .customLong("exchange-audience"),
            help: "A resource this confidential client may exchange a person's token for (RFC 8693); repeat for each.")
        var exchangeAudiences: [String] = []
        @Option(name: .customLong("exchange-scope"), help: "A scope exchanged tokens may carry (default: any the subject token has); repeat for each.")
        var exchangeScopes: [String] = []
        @Flag(help: "Exchanged tokens do not name this client in act (impersonation, audited) instead of delegation.")
        var impersonation = false
        @Option(
            name: .customLong("exchange-subject-issuer"),
            help: "An identity provider's issuer whose ID tokens this client may exchange, for the linked account; repeat for each.")
        var exchangeSubjectIssuers: [String] = []
        @Option(
            name: .customLong("auth-method"),
            help: "How it authenticates: client_secret_basic (default with a secret), client_secret_post, client_secret_jwt or private_key_jwt.")
        var authenticationMethod: String?
        @Option(name: .customLong("jwks-uri"), help: "For private_key_jwt: where the client publishes its public keys (https, or http on loopback).")
        var jwksURI: String?
        @Option(name: .customLong("jwks-file"), help: "For private_key_jwt: a file holding the client's public keys (a JWKS).")
        var jwksFile: String?
        @Option(
            name: .customLong("backchannel-logout-uri"),
            help: "Where Gatehouse posts a logout token when a person who signed in to it signs out (https, or http on loopback).")
        var backchannelLogoutURI: String?
        @Option(
            name: .customLong("frontchannel-logout-uri"),
            help: "The page Gatehouse's signed-out page loads in a frame, with iss and sid, when such a person signs out.")
        var frontchannelLogoutURI: String?
        @Flag(
            name: .customLong("require-signed-requests"),
            help: "Refuse authorization requests that are not request objects it signed (RFC 9101); needs private_key_jwt or client_secret_jwt.")
        var requireSignedRequests = false
        @Flag(name: .customLong("require-par"), help: "Refuse authorization requests it did not push first (RFC 9126).")
        var requirePAR = false
        @Option(
            help: "Hold it to a security profile: fapi2 (FAPI 2.0: private_key_jwt, PAR, DPoP, ES256 ID tokens, https redirect URIs).")
        var profile: SecurityProfile?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        /// The method asked for, `nil` when left to --public or the secret flags.
        private var method: ClientAuthenticationMethod? {
            get throws {
                guard let authenticationMethod else { return nil }
                guard let method = ClientAuthenticationMethod(rawValue: authenticationMethod), method != .none else {
                    throw ValidationError(
                        "--auth-method must be client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt (a public client: --public).")
                }
                return method
            }
        }

        func validate() throws {
            do {
                try ClientRegistrationRules.validateClientID(clientID)
                guard !redirectURIs.isEmpty || deviceGrant else { throw ValidationError("Give at least one --redirect-uri (or --device-grant).") }
                for uri in redirectURIs + postLogoutRedirectURIs { try ClientRegistrationRules.validateRedirectURI(uri) }
                try ClientRegistrationRules.validateScopes(scopes.flatMap { $0.split(separator: " ").map(String.init) })
                try ClientRegistrationRules.validateAlgorithm(idTokenAlgorithm)
                if let logoURI { try ClientRegistrationRules.validateWebPage(logoURI, named: "logo URI") }
                if let homepage { try ClientRegistrationRules.validateWebPage(homepage, named: "client URI") }
                if let jwksURI { try ClientRegistrationRules.validateAuthentication(.privateKeyJWT, jwksURI: jwksURI, jwks: nil) }
                if let uri = backchannelLogoutURI { try ClientRegistrationRules.validateLogoutURI(uri, named: "back-channel logout URI") }
                if let uri = frontchannelLogoutURI { try ClientRegistrationRules.validateLogoutURI(uri, named: "front-channel logout URI") }
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
            if try method == .privateKeyJWT {
                guard !`public`, !secretStdin, !generateSecret else {
                    throw ValidationError("A private_key_jwt client has no secret: leave out --public, --secret-stdin and --generate-secret.")
                }
                guard (jwksURI == nil) != (jwksFile == nil) else { throw ValidationError("Give the client's public keys: --jwks-uri or --jwks-file.") }
            } else {
                guard jwksURI == nil, jwksFile == nil else { throw ValidationError("--jwks-uri and --jwks-file are for --auth-method private_key_jwt.") }
                guard [`public`, secretStdin, generateSecret].filter({ $0 }).count == 1 else {
                    throw ValidationError("Choose exactly one of --public, --secret-stdin and --generate-secret.")
                }
                if `public`, try method != nil { throw ValidationError("A public client has no --auth-method: it sends only its id.") }
            }
            if `public` && allowWithoutPKCE {
                throw ValidationError("A public client always needs PKCE; --allow-without-pkce is for confidential clients only.")
            }
        }

        func run() async throws {
            var secret: String?
            if secretStdin {
                secret = try readSecretFromStandardInput("client secret")
                do { try ClientRegistrationRules.validateSecret(secret!) } catch let error as ConfigurationError { throw CommandError(error.description) }
            }
            var jwks: JSONWebKeySet?
            if let jwksFile {
                guard let data = FileManager.default.contents(atPath: jwksFile) else { throw CommandError("Cannot read \(jwksFile).") }
                guard let keys = try? JSONDecoder().decode(JSONWebKeySet.self, from: data) else {
                    throw CommandError("\(jwksFile) is not a JWKS: a JSON object with a \"keys\" array of public keys.")
                }
                jwks = keys
            }
            let requested = scopes.flatMap { $0.split(separator: " ").map(String.init) }
            let registration = ClientRegistration(
                id: clientID, name: name, redirectURIs: redirectURIs, postLogoutRedirectURIs: postLogoutRedirectURIs,
                scopes: requested.isEmpty ? nil : requested, isPublic: `public`, secret: secret, idTokenAlgorithm: idTokenAlgorithm,
                requirePKCE: !allowWithoutPKCE, deviceGrant: deviceGrant, requireDPoP: requireDPoP, thirdParty: thirdParty, logoURI: logoURI,
                homepage: homepage,
                tokenExchange: exchangeAudiences.isEmpty
                    ? nil
                    : TokenExchangePolicy(
                        audiences: exchangeAudiences, scopes: exchangeScopes, delegation: !impersonation, impersonation: impersonation,
                        subjectIssuers: exchangeSubjectIssuers),
                authenticationMethod: try method, jwksURI: jwksURI, jwks: jwks, backchannelLogoutURI: backchannelLogoutURI,
                frontchannelLogoutURI: frontchannelLogoutURI
            ).requiring(signed: requireSignedRequests, pushed: requirePAR, profile: profile)
            let created = try await store.withOperations { try await $0.createClient(registration) }
            if output.json {
                struct Created: Encodable {
                    var client: Summary
                    var clientSecret: String?
                    enum CodingKeys: String, CodingKey { case client; case clientSecret = "client_secret" }
                }
                try JSONOutput.print(Created(client: Summary(created.client), clientSecret: created.generatedSecret))
            } else {
                let party = created.client.thirdParty ? " third-party" : ""
                print("Added\(party) \(created.client.isPublic ? "public" : "confidential") client \(created.client.id).")
                if let secret = created.generatedSecret {
                    print("Client secret (shown once, store it now): \(secret)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List clients.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let clients = try await store.withOperations { try await $0.clients() }.map(Summary.init)
            if output.json { return try JSONOutput.print(clients) }
            guard !clients.isEmpty else { return print("No clients yet. Add one with `gatehouse clients add`.") }
            var table = TextTable(headers: ["CLIENT ID", "AUTHENTICATION", "PARTY", "PKCE", "DEVICE", "DPOP", "ALG", "SCOPES", "REDIRECT URIS"])
            table.rows = clients.map {
                [
                    $0.id, $0.authenticationMethod.rawValue, $0.thirdParty ? "third" : "first", $0.requiresPKCE ? "required" : "optional",
                    $0.deviceGrant ? "yes" : "no",
                    $0.requiresDPoP ? "required" : "optional",
                    $0.idTokenAlgorithm,
                    $0.scopes.joined(separator: " "), $0.redirectURIs.joined(separator: " "),
                ]
            }
            print(table.render())
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a client and revoke its tokens.")
        @Argument(help: "The client id.")
        var clientID: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { try await $0.deleteClient(clientID) }
            print("Deleted client \(clientID); its tokens are revoked.")
        }
    }
}
extension SecurityProfile: ExpressibleByArgument {}
