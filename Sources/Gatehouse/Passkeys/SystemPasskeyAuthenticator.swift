#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// The system's passkeys on Apple platforms (AuthenticationServices): the passkey sheet for passkeys in iCloud
/// Keychain or on a phone nearby, and security keys over USB, NFC or Bluetooth. Only the calls into the system live
/// here; reading options and writing the JSON is ``PlatformPasskeyProvider``'s, tested on every platform.
///
/// Your app needs the Associated Domains entitlement `webcredentials:` with the relying party id, and the server's
/// `/.well-known/apple-app-site-association` naming the app.
@available(iOS 16.0, macOS 13.0, *)
@MainActor
public final class SystemPasskeyAuthenticator: NSObject, PlatformAuthenticator {
    /// Why the system's answer could not be used.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another passkey request is still showing; one at a time.
        case busy
        /// The system returned something other than a passkey credential.
        case unexpectedCredential

        public var description: String {
            switch self {
            case .busy: "A passkey request is already showing; wait for it to finish."
            case .unexpectedCredential: "The system returned something other than a passkey."
            }
        }
    }

    /// What a finished request produced, taken from the system's objects on the main actor.
    private enum Answer: Sendable {
        case registration(PasskeyRegistrationResult)
        case assertion(PasskeyAssertionResult)
    }

    private let anchor: ASPresentationAnchor
    /// Whether security keys are offered beside the platform's passkeys.
    public var allowsSecurityKeys = true
    private var pending: CheckedContinuation<Answer, any Error>?
    private var controller: ASAuthorizationController?

    /// An authenticator that shows the system's sheets over `anchor` (the app's window).
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public nonisolated func register(_ request: PasskeyCreationRequest) async throws -> PasskeyRegistrationResult {
        guard case .registration(let result) = try await perform(registration: request) else { throw Failure.unexpectedCredential }
        return result
    }

    public nonisolated func assert(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertionResult {
        guard case .assertion(let result) = try await perform(assertion: request) else { throw Failure.unexpectedCredential }
        return result
    }

    private func perform(registration request: PasskeyCreationRequest) async throws -> Answer {
        let verification = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: request.userVerification)
        let platform = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyID)
            .createCredentialRegistrationRequest(challenge: request.challenge, name: request.userName, userID: request.userID)
        platform.userVerificationPreference = verification
        platform.attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind(rawValue: request.attestation)
        if #available(iOS 17.4, macOS 14.4, *) {
            platform.excludedCredentials = request.excludedCredentialIDs.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        }
        var requests: [ASAuthorizationRequest] = [platform]
        if allowsSecurityKeys {
            let key = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyID)
                .createCredentialRegistrationRequest(
                    challenge: request.challenge, displayName: request.displayName, name: request.userName, userID: request.userID)
            key.credentialParameters = [ASAuthorizationPublicKeyCredentialParameters(algorithm: .ES256)]
            key.userVerificationPreference = verification
            key.residentKeyPreference = ASAuthorizationPublicKeyCredentialResidentKeyPreference(rawValue: request.residentKey)
            key.attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind(rawValue: request.attestation)
            key.excludedCredentials = request.excludedCredentialIDs.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0, transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            requests.append(key)
        }
        return try await perform(requests)
    }

    private func perform(assertion request: PasskeyAssertionRequest) async throws -> Answer {
        let verification = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: request.userVerification)
        let platform = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyID)
            .createCredentialAssertionRequest(challenge: request.challenge)
        platform.allowedCredentials = request.allowedCredentialIDs.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        platform.userVerificationPreference = verification
        var requests: [ASAuthorizationRequest] = [platform]
        if allowsSecurityKeys {
            let key = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyID)
                .createCredentialAssertionRequest(challenge: request.challenge)
            key.allowedCredentials = request.allowedCredentialIDs.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0, transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            key.userVerificationPreference = verification
            requests.append(key)
        }
        return try await perform(requests)
    }

    private func perform(_ requests: [ASAuthorizationRequest]) async throws -> Answer {
        guard pending == nil else { throw Failure.busy }
        return try await withCheckedThrowingContinuation { continuation in
            pending = continuation
            let controller = ASAuthorizationController(authorizationRequests: requests)
            controller.delegate = self
            controller.presentationContextProvider = self
            self.controller = controller
            controller.performRequests()
        }
    }

    private func finish(_ result: Result<Answer, any Error>) {
        let continuation = pending
        pending = nil
        controller = nil
        continuation?.resume(with: result)
    }

    /// The raw values of what the system made, or why it cannot be used.
    private static func answer(_ authorization: ASAuthorization) -> Result<Answer, any Error> {
        let attachment =
            authorization.credential is ASAuthorizationPlatformPublicKeyCredentialRegistration
                || authorization.credential is ASAuthorizationPlatformPublicKeyCredentialAssertion ? "platform" : "cross-platform"
        if let made = authorization.credential as? ASAuthorizationPublicKeyCredentialRegistration, let attestation = made.rawAttestationObject {
            return .success(
                .registration(
                    PasskeyRegistrationResult(
                        credentialID: made.credentialID, clientDataJSON: made.rawClientDataJSON, attestationObject: attestation, attachment: attachment)))
        }
        // The assertion's data, signature and user handle are implicitly unwrapped in the SDK: bound, never forced.
        if let signed = authorization.credential as? ASAuthorizationPublicKeyCredentialAssertion,
            let authenticatorData = signed.rawAuthenticatorData as Data?, let signature = signed.signature as Data?
        {
            let handle: Data? = signed.userID
            return .success(
                .assertion(
                    PasskeyAssertionResult(
                        credentialID: signed.credentialID, clientDataJSON: signed.rawClientDataJSON, authenticatorData: authenticatorData,
                        signature: signature, userHandle: handle.flatMap { $0.isEmpty ? nil : $0 }, attachment: attachment)))
        }
        return .failure(Failure.unexpectedCredential)
    }
}

@available(iOS 16.0, macOS 13.0, *)
extension SystemPasskeyAuthenticator: ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    // The system calls these on the main thread.
    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        MainActor.assumeIsolated { finish(Self.answer(authorization)) }
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        MainActor.assumeIsolated { finish(.failure(error)) }
    }

    public nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }
}
#endif
