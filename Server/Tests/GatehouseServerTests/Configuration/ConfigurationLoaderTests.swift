import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Configuration")
struct ConfigurationLoaderTests {
    @Test("defaults start on loopback with SQLite in the current folder")
    func defaults() throws {
        let configuration = try ConfigurationLoader(environment: [:]).load(configFile: nil)
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.database == .sqlite(path: "gatehouse.sqlite") && configuration.logLevel == .info)
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
        let configuration = try loader.load(configFile: file.path, overrides: [.database: "cli.sqlite"])
        #expect(configuration.host == "127.0.0.2")
        #expect(configuration.port == 9100)
        #expect(configuration.database == .sqlite(path: "cli.sqlite"))
        #expect(configuration.tokens.accessToken == 60)
        #expect(configuration.tokens.refreshToken == TokenLifetimes().refreshToken)  // left out, so default
    }

    @Test("mistakes are reported with what to change")
    func mistakes() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"prot": 1}"#.utf8).write(to: file)
        let unknown = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path) }
        #expect(unknown?.key == "prot")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: ["GATEHOUSE_PORT": "eighty"]).load(configFile: nil)
        }
        let issuer = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: [:]).load(configFile: nil, overrides: [.issuer: "http://id.example.com"])
        }
        #expect(issuer?.key == "issuer")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: [:]).load(configFile: folder.appendingPathComponent("missing.json").path)
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
            (#"{"sign_on": {"second_factor": "required", "optional_enrollment": true}}"#, "sign_on.optional_enrollment"),
            (#"{"client_sign_on": {"app": {"second_factor": "if_enrolled", "enrollment_reminder_days": 0}}}"#, "client_sign_on.app.enrollment_reminder_days"),
            (#"{"admin_console": {"listener": "metrics"}}"#, "admin_console.listener"),
            (#"{"admin_console": {"listener": "intranet"}}"#, "admin_console.listener"),
        ] {
            try Data(json.utf8).write(to: file)
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path) }
            #expect(error?.key == key, "\(json): \(error?.description ?? "")")
        }
    }

    @Test(
        "an unknown key at any depth is refused with its path",
        arguments: [
            (#"{"sign_on": {"second_factor": "required", "optional_enrolment": true}}"#, "sign_on.optional_enrolment"),
            (#"{"client_sign_on": {"app": {"factor": ["totp"]}}}"#, "client_sign_on.app.factor"),
            (#"{"courier": {"fax": {"delivery": "outbox"}}}"#, "courier.fax"),
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
            (#"{"account": {"reauthenticate": 60}}"#, "account.reauthenticate"),
            (#"{"one_time_codes": {"length": 8}}"#, "one_time_codes.length"),
            (#"{"authenticator": {"pin_attempts": 2}}"#, "authenticator.pin_attempts"),
            (#"{"password_policy": {"min_len": 12}}"#, "password_policy.min_len"),
        ])
    func unknownNestedKeys(json: String, path: String) throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(json.utf8).write(to: file)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path) }
        #expect(error?.key == path)
        #expect(error?.description.contains("\(path): unknown key") == true, "\(error?.description ?? "")")
    }

    @Test("the environment and the command line set the same settings by one name each, and a bad value names its setting")
    func keyedSettings() throws {
        let environment = [
            "GATEHOUSE_LOG_LEVEL": "DEBUG", "GATEHOUSE_DATABASE": "postgres://u:p@127.0.0.1/db", "GATEHOUSE_SECRET": "s",
            "GATEHOUSE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8", "GATEHOUSE_DEMO": "yes", "GATEHOUSE_MAX_CONCURRENT_HASHES": "3",
        ]
        let configuration = try ConfigurationLoader(environment: environment).load(configFile: nil, overrides: [.port: "9001", .logLevel: "warning"])
        #expect(configuration.logLevel == .warning && configuration.port == 9001 && configuration.demo)
        #expect(configuration.database == .postgres(url: "postgres://u:p@127.0.0.1/db") && configuration.maxConcurrentHashes == 3)
        #expect(configuration.trustedProxies.addresses.map(\.description) == ["127.0.0.1", "10.0.0.0/8"])
        #expect(ServerSetting.logLevel.environmentName == "GATEHOUSE_LOG_LEVEL")
        for (environment, overrides, key) in [
            (["GATEHOUSE_LOG_LEVEL": "verbose"], [:], "log_level"),
            ([:], [ServerSetting.logLevel: "loud"], "log_level"),
            (["GATEHOUSE_PORT": "eighty"], [:], "port"),
            (["GATEHOUSE_DEMO": "maybe"], [:], "demo"),
            ([:], [.database: "mysql://127.0.0.1/db"], "database"),
            (["GATEHOUSE_TRUSTED_PROXIES": "10.0.0.0/33"], [:], "trusted_proxies.addresses"),
        ] as [([String: String], [ServerSetting: String], String)] {
            let error = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader(environment: environment).load(configFile: nil, overrides: overrides)
            }
            #expect(error?.key == key, "\(environment) \(overrides): \(error?.description ?? "")")
        }
    }

    @Test("the file's database and log level are typed: a URL's scheme and a level's name are checked as the file is read")
    func typedFileSettings() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(#"{"database": "data/id.sqlite", "log_level": "notice", "demo": true}"#.utf8).write(to: file)
        let configuration = try ConfigurationLoader(environment: [:]).load(configFile: file.path)
        #expect(configuration.database == .sqlite(path: "data/id.sqlite") && configuration.logLevel == .notice)
        #expect(configuration.resolvedSecretFile == "data/id.sqlite.secret")
        for (json, key) in [(#"{"database": "mongodb://db"}"#, "database"), (#"{"log_level": "chatty"}"#, "log_level")] {
            try Data(json.utf8).write(to: file)
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path) }
            #expect(error?.key == key, "\(json): \(error?.description ?? "")")
        }
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
