import Foundation
import Testing

@testable import GatehouseServer

@Suite("Configuration")
struct ConfigurationLoaderTests {
    @Test("defaults start on loopback with SQLite in the current folder")
    func defaults() throws {
        let configuration = try ConfigurationLoader(environment: [:]).load(configFile: nil, overrides: .init())
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.database == "gatehouse.sqlite")
        #expect(configuration.resolvedIssuer == "http://127.0.0.1:8080")
        #expect(configuration.resolvedSecretFile == "gatehouse.sqlite.secret")
        #expect(!configuration.issuerIsHTTPS)
    }

    @Test("command line beats environment beats file")
    func precedence() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"host": "127.0.0.2", "port": 9000, "database": "file.sqlite", "token_lifetimes": {"access_token": 60}}"#.utf8).write(to: file)
        let loader = ConfigurationLoader(environment: ["GATEHOUSE_PORT": "9100", "GATEHOUSE_DATABASE": "env.sqlite"])
        let configuration = try loader.load(configFile: file.path, overrides: .init(database: "cli.sqlite"))
        #expect(configuration.host == "127.0.0.2")
        #expect(configuration.port == 9100)
        #expect(configuration.database == "cli.sqlite")
        #expect(configuration.tokens.accessToken == 60)
        #expect(configuration.tokens.refreshToken == TokenLifetimes().refreshToken)  // left out, so default
    }

    @Test("mistakes are reported with what to change")
    func mistakes() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"prot": 1}"#.utf8).write(to: file)
        let unknown = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init()) }
        #expect(unknown?.key == "prot")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: ["GATEHOUSE_PORT": "eighty"]).load(configFile: nil, overrides: .init())
        }
        let issuer = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: [:]).load(configFile: nil, overrides: .init(issuer: "http://id.example.com"))
        }
        #expect(issuer?.key == "issuer")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: [:]).load(configFile: folder.appendingPathComponent("missing.json").path, overrides: .init())
        }
        // Each refusal names the setting at fault, so a test (or a tool) can tell which.
        for (json, key) in [
            (#"{"token_lifetimes": {"authorization_code": 3600}}"#, "token_lifetimes.authorization_code"),
            (#"{"connections": {"max_connections": 3}}"#, "connections.max_connections"),
            (#"{"connections": {"idle_timeout": 0}}"#, "connections.idle_timeout"),
            (#"{"password_policy": {"min_length": 4}}"#, "password_policy.min_length"),
            (#"{"login_throttling": {"max_failures": 0}}"#, "login_throttling"),
            (#"{"port": "eighty"}"#, "port"),
            (#"{"sign_on": {"second_factor": "sometimes"}}"#, "sign_on.second_factor"),
        ] {
            try Data(json.utf8).write(to: file)
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init()) }
            #expect(error?.key == key, "\(json): \(error?.description ?? "")")
        }
    }

    @Test(
        "an unknown key at any depth is refused with its path",
        arguments: [
            (#"{"sign_on": {"second_factor": "required", "optional_enrolment": true}}"#, "sign_on.optional_enrolment"),
            (#"{"client_sign_on": {"app": {"factor": ["totp"]}}}"#, "client_sign_on.app.factor"),
            (#"{"courier": {"voice": {"delivery": "outbox"}}}"#, "courier.voice"),
            (
                #"{"courier": {"email": {"delivery": "smtp", "smtp": {"host": "mail", "port": 25, "passwd": "x"}}}}"#,
                "courier.email.smtp.passwd"
            ),
            (#"{"courier": {"sms": {"delivery": "outbox", "webhok": {}}}}"#, "courier.sms.webhok"),
            (#"{"login_throttling": {"max_failure": 3}}"#, "login_throttling.max_failure"),
            (#"{"password_hashing": {"log_n": 12, "block_size": 8, "parallelism": 1, "salt": 1}}"#, "password_hashing.salt"),
            (#"{"token_lifetimes": {"session_idl": 60}}"#, "token_lifetimes.session_idl"),
            (#"{"connections": {"idle": 5}}"#, "connections.idle"),
            (#"{"trusted_proxies": {"address": ["10.0.0.1"]}}"#, "trusted_proxies.address"),
            (#"{"registration": {"enable": true}}"#, "registration.enable"),
            (#"{"one_time_codes": {"length": 8}}"#, "one_time_codes.length"),
            (#"{"authenticator": {"pin_attempts": 2}}"#, "authenticator.pin_attempts"),
            (#"{"password_policy": {"min_len": 12}}"#, "password_policy.min_len"),
        ])
    func unknownNestedKeys(json: String, path: String) throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(json.utf8).write(to: file)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init()) }
        #expect(error?.key == path)
        #expect(error?.description.contains("\(path): unknown key") == true, "\(error?.description ?? "")")
    }

    @Test("token lifetimes are capped at one day for access tokens and 366 days for refresh tokens")
    func lifetimeCaps() throws {
        var lifetimes = TokenLifetimes()
        lifetimes.accessToken = 86_400
        lifetimes.refreshToken = 366 * 86_400
        try lifetimes.validate()
        lifetimes.accessToken = 86_401
        #expect(throws: ConfigurationError.self) { try lifetimes.validate() }
        lifetimes.accessToken = 900
        lifetimes.refreshToken = 366 * 86_400 + 1
        #expect(throws: ConfigurationError.self) { try lifetimes.validate() }
    }

    @Test("the issuer follows host and port, with brackets for IPv6, and https switches on secure cookies")
    func issuer() throws {
        var configuration = ServerConfiguration()
        configuration.host = "::1"
        configuration.port = 9443
        #expect(configuration.resolvedIssuer == "http://[::1]:9443")
        configuration.issuer = "https://id.example.com/"
        #expect(configuration.resolvedIssuer == "https://id.example.com")
        #expect(configuration.issuerIsHTTPS)
        #expect(CookieSettings(secure: true).sessionName == "__Host-gatehouse_session")
    }
}
