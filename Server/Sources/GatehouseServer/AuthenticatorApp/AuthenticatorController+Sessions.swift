import Crypto
import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseProtocol
import Hummingbird

/// Approving a QR sign-in: the device claims the session with the access code, has its blinded PIN evaluated
/// (each evaluation counted as a wrong PIN until a signature proves otherwise), and signs the challenge.
extension AuthenticatorController {
    func claimSession(_ request: Request) async throws -> Response {
        let identity = try await registeredDevice(request)
        let body = try await JSONRequest.decode(AuthenticatorSessionRequest.self, from: request)
        guard let userID = identity.userID, let user = try await users.find(id: userID), !user.isLocked else {
            throw OAuthError.locked
        }
        guard
            let claimed = try await appLogins.claim(
                accessCode: body.accessCode.trimmingCharacters(in: .whitespaces),
                identityID: identity.id, userID: userID)
        else { throw OAuthError.sessionExpired }
        logger.info("QR sign-in claimed", metadata: ["identity": "\(identity.id)"])
        return JSONResponse.make(session(claimed, username: user.username))
    }

    /// A claimed session as the app shows it; `numberChoices` for a pushed one.
    func session(_ claimed: AppLoginStore.Claimed, username: String, numberChoices: [Int]? = nil) -> AuthenticatorSession {
        AuthenticatorSession(
            sessionID: claimed.id, serviceName: serviceName, clientName: claimed.clientName, username: username,
            expiresIn: max(0, claimed.expiresAt - clock.now()), requesterAddress: claimed.requester.address,
            requesterUserAgent: claimed.requester.userAgent, requestedAt: claimed.createdAt, numberChoices: numberChoices)
    }

    func evaluatePIN(_ request: Request, sessionID: String) async throws -> Response {
        let identity = try await registeredDevice(request)
        let body = try await JSONRequest.decode(PINEvaluationRequest.self, from: request)
        guard let challenge = try await appLogins.newChallenge(sessionID, identityID: identity.id) else { throw OAuthError.sessionExpired }
        // Counted before evaluating: the device can tell a right PIN from the evaluation alone, so every evaluation is a guess.
        let limit = policy.maxPINAttempts
        let taken = try await database.transaction { [deviceIdentities, audit] _ in
            let failures = try await deviceIdentities.takePINAttempt(identity.id, limit: limit)
            // The last attempt the limit allows: unless its signature proves the PIN, the identity is blocked from now on.
            if failures == limit {
                try await audit.record(
                    .deviceIdentityBlocked, user: identity.userID, details: ["identity": identity.id, "wrong_pins": String(limit)])
            }
            return failures
        }
        guard let failures = taken else {
            logger.warning("PIN refused: device identity blocked", metadata: ["identity": "\(identity.id)"])
            throw Self.blocked()
        }
        let evaluation = try evaluate(body.blindedElement, for: identity)
        return JSONResponse.make(PINEvaluation(evaluation: evaluation, challenge: challenge, attemptsRemaining: policy.maxPINAttempts - failures))
    }

    func approve(_ request: Request, sessionID: String, source: ClientAddress) async throws -> Response {
        let identity = try await device(request)
        let body = try await JSONRequest.decode(AuthenticatorApproval.self, from: request)
        guard let (challenge, number) = try await appLogins.challenge(sessionID, identityID: identity.id) else { throw OAuthError.sessionExpired }
        // A pushed sign-in: the number first, which denies it when wrong whatever the PIN.
        if let number { try await checkNumber(body.number, expected: number, sessionID: sessionID, identity: identity, source: source) }
        guard let key = identity.publicKey.flatMap(Base64URL.decode).flatMap({ try? P256.Signing.PublicKey(x963Representation: $0) }),
            let signatureBytes = Base64URL.decode(body.signature),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.isValidSignature(signature, for: PINProtocol.approvalMessage(sessionID: sessionID, challenge: challenge))
        else {
            let remaining = max(0, policy.maxPINAttempts - identity.pinFailures)
            logger.warning("Wrong PIN signature", metadata: ["identity": "\(identity.id)"])
            throw OAuthError(.wrongPIN, "The PIN is incorrect.", attemptsRemaining: remaining)
        }
        let limit = policy.maxPINAttempts
        let approved = try await database.transaction { [appLogins, audit] _ in
            guard try await appLogins.approve(sessionID, identityID: identity.id, challenge: challenge, grace: 120) else { return false }
            // The limit's last attempt blocked the identity (and was recorded so); its right PIN lifts the block.
            if identity.pinFailures >= limit {
                try await audit.record(.deviceIdentityUnblocked, user: identity.userID, details: ["identity": identity.id, "by": "right_pin"])
            }
            return true
        }
        guard approved else { throw OAuthError.sessionExpired }
        logger.info("QR sign-in approved", metadata: ["identity": "\(identity.id)"])
        return JSONResponse.make(AuthenticatorSessionStatus(status: AppLoginStore.Status.approved.rawValue))
    }

    func abort(_ request: Request, sessionID: String) async throws -> Response {
        let identity = try await device(request)
        // An empty body declines; `report_fraud` says the person did not ask for this sign-in.
        let denial = try await JSONRequest.decodeIfPresent(AuthenticatorDenial.self, from: request)
        guard try await appLogins.abort(sessionID, identityID: identity.id) else { throw OAuthError.sessionExpired }
        logger.info("Sign-in cancelled in the app", metadata: ["identity": "\(identity.id)"])
        if denial?.reportFraud == true { try await denied(identity, reason: "reported") }
        return JSONResponse.make(AuthenticatorSessionStatus(status: AppLoginStore.Status.aborted.rawValue))
    }

    /// The request's identity, which must have its PIN set and not be blocked.
    private func registeredDevice(_ request: Request) async throws -> DeviceIdentity {
        let identity = try await device(request)
        switch identity.state(limit: policy.maxPINAttempts) {
        case .registered: return identity
        case .blocked: throw Self.blocked()
        case .registrationStarted, .verified: throw Self.wrongState("Finish registering this device (confirm the email, set the PIN) first.")
        }
    }
}

extension OAuthError {
    /// The access code or session is unknown, used, expired, or another device's.
    static var sessionExpired: OAuthError {
        OAuthError(.sessionExpired, "The session expired; refresh the page and scan again.")
    }

    static var locked: OAuthError {
        OAuthError(.accountLocked, LoginMessages.english(LoginMessages.locked))
    }
}
