import GatehouseProtocol

/// How an authenticator app names itself to Gatehouse services, in the `Gatehouse-App` header of every request.
/// A service may accept only some apps (else ``DeviceAuthenticatorError/appNotAllowed``) and only recent versions
/// (else ``DeviceAuthenticatorError/updateRequired(minimumVersion:)``).
public struct AuthenticatorApp: Sendable, Equatable {
    /// The app's name, e.g. `com.example.authenticator`.
    public var name: String
    /// The app's version, dotted numbers such as `2.1.0`.
    public var version: String

    /// An app called `name` at `version` (a semantic version such as `1.4.0`).
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    var headerValue: String { "\(name)/\(version)" }
}
