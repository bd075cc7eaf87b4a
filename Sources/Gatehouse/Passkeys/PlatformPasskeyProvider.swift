/// An authenticator API that works with raw WebAuthn values: the system's (AuthenticationServices on Apple
/// platforms, `SystemPasskeyAuthenticator`), or a stand-in in tests.
public protocol PlatformAuthenticator: Sendable {
    /// Makes a passkey for `request`.
    func register(_ request: PasskeyCreationRequest) async throws -> PasskeyRegistrationResult
    /// Signs in with a passkey for `request`.
    func assert(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertionResult
}

/// A ``PasskeyProvider`` over a ``PlatformAuthenticator``: reads the server's options JSON into typed requests and
/// writes what the authenticator made back as WebAuthn's credential JSON. On Apple platforms use
/// `SystemPasskeyAuthenticator`; everything else here is the same on every platform, and tested on Linux.
///
/// ```swift
/// let passkeys = PlatformPasskeyProvider(authenticator: SystemPasskeyAuthenticator(anchor: window))
/// let login = MultifactorLogin(client: gatehouse, passkeys: passkeys) { step in ... }
/// let user = try await login.loginWithPasskey()
/// ```
public struct PlatformPasskeyProvider: PasskeyProvider {
    /// The authenticator that makes and uses the passkeys.
    public let authenticator: any PlatformAuthenticator

    /// A provider that asks `authenticator`.
    public init(authenticator: any PlatformAuthenticator) {
        self.authenticator = authenticator
    }

    public func createPasskey(optionsJSON: String) async throws -> String {
        PasskeyJSON.json(try await authenticator.register(try PasskeyJSON.creation(optionsJSON)))
    }

    public func usePasskey(optionsJSON: String) async throws -> String {
        PasskeyJSON.json(try await authenticator.assert(try PasskeyJSON.assertion(optionsJSON)))
    }
}
