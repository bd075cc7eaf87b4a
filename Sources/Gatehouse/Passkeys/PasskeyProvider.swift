/// Makes and uses passkeys for the SDK. On Apple platforms the SDK's adapter over AuthenticationServices is one;
/// apps and tests may plug in any other (a security key library, a software authenticator in tests).
public protocol PasskeyProvider: Sendable {
    /// Creates a passkey for `optionsJSON` (`PublicKeyCredentialCreationOptionsJSON`) and returns the new
    /// credential's JSON (`RegistrationResponseJSON`).
    func createPasskey(optionsJSON: String) async throws -> String
    /// Signs in with a passkey for `optionsJSON` (`PublicKeyCredentialRequestOptionsJSON`) and returns the
    /// assertion's JSON (`AuthenticationResponseJSON`).
    func usePasskey(optionsJSON: String) async throws -> String
}
