import Foundation

/// The JSON configuration file. Every key is optional; unknown keys are rejected so typos are caught.
struct ConfigurationFile: Decodable {
    var host: String?
    var port: Int?
    var database: String?
    var issuer: String?
    var secret: String?
    var secretFile: String?
    var passwordHashing: PasswordHashingParameters?
    var maxConcurrentHashes: Int?
    var tokenLifetimes: TokenLifetimes?
    var loginThrottling: AttemptLimit.Overrides?
    var codeGuesses: AttemptLimit.Overrides?
    var sourceThrottling: AttemptLimit.Overrides?
    var passwordPolicy: PasswordPolicy?
    var signOn: SignOnPolicy?
    var clientSignOn: [String: SignOnPolicy]?
    var loginSteps: LoginSteps?
    var registration: RegistrationPolicy?
    var oneTimeCodes: OneTimeCodePolicy?
    var courier: CourierConfiguration?
    var authenticator: AuthenticatorPolicy?
    var connections: ConnectionPolicy?
    var trustedProxies: TrustedProxies?
    var demo: Bool?
    var logLevel: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, database, issuer, secret, demo, registration, courier, authenticator, connections
        case oneTimeCodes = "one_time_codes"
        case secretFile = "secret_file"
        case passwordHashing = "password_hashing"
        case maxConcurrentHashes = "max_concurrent_hashes"
        case tokenLifetimes = "token_lifetimes"
        case loginThrottling = "login_throttling"
        case codeGuesses = "code_guesses"
        case sourceThrottling = "source_throttling"
        case passwordPolicy = "password_policy"
        case signOn = "sign_on"
        case clientSignOn = "client_sign_on"
        case loginSteps = "login_steps"
        case logLevel = "log_level"
        case trustedProxies = "trusted_proxies"
    }

    static func read(path: String) throws -> ConfigurationFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("Cannot read the configuration file \(path).")
        }
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            let known = Set(CodingKeys.allCases.map(\.rawValue))
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw ConfigurationError(
                    "Unknown key \"\(unknown)\" in \(path); known keys are: \(known.sorted().joined(separator: ", ")).",
                    key: unknown)
            }
        }
        do {
            return try JSONDecoder().decode(ConfigurationFile.self, from: data)
        } catch let error as DecodingError {
            let message = "The configuration file \(path) is not valid: \(Self.explain(error))."
            guard let key = Self.keyPath(of: error) else { throw ConfigurationError(message) }
            throw ConfigurationError(message, key: key)
        }
    }

    func apply(to configuration: inout ServerConfiguration) {
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let database { configuration.database = database }
        if let issuer { configuration.issuer = issuer }
        if let secret { configuration.secret = secret }
        if let secretFile { configuration.secretFile = secretFile }
        if let passwordHashing { configuration.passwordHashing = passwordHashing }
        if let maxConcurrentHashes { configuration.maxConcurrentHashes = maxConcurrentHashes }
        if let tokenLifetimes { configuration.tokens = tokenLifetimes }
        if let loginThrottling { configuration.throttling = loginThrottling.applied(to: configuration.throttling) }
        if let codeGuesses { configuration.codeGuesses = codeGuesses.applied(to: configuration.codeGuesses) }
        if let sourceThrottling { configuration.sourceThrottling = sourceThrottling.applied(to: configuration.sourceThrottling) }
        if let passwordPolicy { configuration.passwords = passwordPolicy }
        if let signOn { configuration.signOn = signOn }
        if let clientSignOn { configuration.clientSignOn = clientSignOn }
        if let loginSteps { configuration.loginSteps = loginSteps }
        if let registration { configuration.registration = registration }
        if let oneTimeCodes { configuration.oneTimeCodes = oneTimeCodes }
        if let courier { configuration.courier = courier }
        if let authenticator { configuration.authenticator = authenticator }
        if let connections { configuration.connections = connections }
        if let trustedProxies { configuration.trustedProxies = trustedProxies }
        if let demo { configuration.demo = demo }
        if let logLevel { configuration.logLevel = logLevel }
    }

    /// The dotted path of the setting a decoding error is about, if it is about one.
    private static func keyPath(of error: DecodingError) -> String? {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? nil : path
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
        @unknown default:
            return nil
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
