import Crypto
import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseProtocol
import Hummingbird

/// Registering a device identity: an email, its confirmation (code or link), then the PIN: the device has its
/// blinded PIN evaluated once with the identity's new OPRF key and sends the public half of the signing key it
/// sealed under the result.
extension AuthenticatorController {
    func startRegistration(_ request: Request, source: ClientAddress) async throws -> Response {
        let body = try await JSONRequest.decode(DeviceRegistrationRequest.self, from: request)
        let email = body.email.trimmingCharacters(in: .whitespaces).lowercased()
        guard EmailAddress.bare(email) == email else { throw OAuthError.invalidRequest("Enter a valid email address.") }
        try await countRegistration(of: email)
        let deviceName = body.deviceName?.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100)
        // Whether or not an account has this address, the answer is the same; only a real account gets the email, and only
        // one that proved the address (an unproven one may be anyone's, and is given up to whoever proves it).
        let user = try await users.find(usernameOrEmail: email).flatMap { $0.email == email && $0.emailVerified && !$0.isLocked ? $0 : nil }
        let started = try await deviceIdentities.start(
            email: email, userID: user?.id, deviceName: deviceName.map(String.init), sealedOPRFKey: try pinKeys.makeKey(),
            lifetime: policy.registrationLifetime
        )
        try await sendVerification(identityID: started.id, email: email, exists: user != nil, resend: false)
        logger.info("Device registration started", metadata: ["identity": "\(started.id)"])
        return JSONResponse.make(
            DeviceRegistrationStarted(
                identityID: started.id, deviceSecret: started.secret,
                verification: policy.verification.rawValue, expiresIn: policy.registrationLifetime),
            status: .created)
    }

    func resendVerification(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        guard identity.state == .registrationStarted else { throw Self.wrongState("The email is confirmed already.") }
        try await sendVerification(identityID: identity.id, email: identity.email, exists: identity.userID != nil, resend: true)
        return JSONResponse.make(try status(of: identity))
    }

    /// Issues a fresh code (the previous one stops working) and emails it, as a code or inside a link.
    private func sendVerification(identityID: String, email: String, exists: Bool, resend: Bool) async throws {
        switch try await oneTimeCodes.issue(flowID: identityID, purpose: .verifyDevice, channel: .email, resend: resend) {
        case .wait(let seconds):
            throw OAuthError(.resendTooSoon, "A code was sent a moment ago. You can ask for another in \(seconds) seconds.")
        case .exhausted:
            throw OAuthError(.registrationExpired, "Too many wrong codes; start the registration again.")
        case .code(let code):
            guard exists else { return }
            let lifetime = codeLifetime
            switch policy.verification {
            case .code:
                try await courier.send(.deviceCode, code: code, to: email, on: .email, service: serverName, codeLifetime: lifetime)
            case .link:
                let link = Redirect.url(url("/authenticator/confirm"), adding: [("identity", identityID), ("code", code)])
                try await courier.send(.deviceLink, code: link, to: email, on: .email, service: serverName, codeLifetime: lifetime)
            }
        }
    }

    /// Counts a registration for `email`, limited per hour whether or not the address has an account (the same
    /// answer either way), so nobody can keep codes coming to an address, nor guess across many registrations.
    private func countRegistration(of email: String) async throws {
        let limit = AttemptLimit(maxFailures: policy.registrationsPerHour, window: 3600, cooldown: 3600, maxCooldown: 3600)
        switch try await guesses.admit([guesses.counter("device_registration", subject: "email:" + email, limit: limit)]) {
        case .blocked(let until, _):
            let minutes = guesses.minutesLeft(until: until)
            throw OAuthError(.tooManyRegistrations, "Too many devices were registered with this address recently. Try again in \(minutes) minutes.")
        case .admitted(let ticket):
            // A registration is never given back: each one counts for the hour.
            try await guesses.settle(ticket, correct: false)
        }
    }

    func verify(_ request: Request, source: ClientAddress) async throws -> Response {
        let identity = try await device(request)
        let body = try await JSONRequest.decode(DeviceVerificationRequest.self, from: request)
        guard identity.state == .registrationStarted else { throw Self.wrongState("The email is confirmed already.") }
        try await confirm(identity, code: body.code, source: source)
        var confirmed = identity
        confirmed.state = .verified
        return JSONResponse.make(try status(of: confirmed))
    }

    /// Checks `code` for `identity` and marks it verified; throws what the app (or the confirmation page) shows.
    /// Each guess is counted per registration, per email address across registrations, and per client address.
    func confirm(_ identity: DeviceIdentity, code: String, source: ClientAddress) async throws {
        let checked = try await codeGuesses.check(.verifyDevice, subject: "email:" + identity.email, source: source) {
            if let userID = identity.userID { try await users.find(id: userID) } else { nil }
        } verify: {
            try await oneTimeCodes.verify(flowID: identity.id, purpose: .verifyDevice, code: code)
        }
        let check: OneTimeCodeStore.Check
        switch checked {
        case .blocked(let minutes): throw OAuthError(.tooManyAttempts, LoginMessages.english(LoginMessages.guessesBlocked, ["minutes": "\(minutes)"]))
        case .checked(let result): check = result
        }
        switch check {
        case .accepted:
            guard try await deviceIdentities.markVerified(identity.id) else { throw Self.wrongState("The email is confirmed already.") }
            logger.info("Device identity confirmed", metadata: ["identity": "\(identity.id)"])
        case .rejected(let remaining) where remaining > 0:
            throw OAuthError(.invalidCode, LoginMessages.english(LoginMessages.invalidCode), attemptsRemaining: remaining)
        case .expired:
            throw OAuthError(.expiredCode, LoginMessages.english(LoginMessages.expiredCode))
        case .rejected, .exhausted:
            throw OAuthError(.registrationExpired, "Too many wrong codes; start the registration again.")
        }
    }

    func evaluateNewPIN(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        let body = try await JSONRequest.decode(PINEvaluationRequest.self, from: request)
        guard identity.state == .verified else { throw Self.wrongState("Confirm the email before setting the PIN.") }
        return JSONResponse.make(PINEvaluation(evaluation: try evaluate(body.blindedElement, for: identity), challenge: nil, attemptsRemaining: nil))
    }

    func activate(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        let body = try await JSONRequest.decode(DeviceActivationRequest.self, from: request)
        guard identity.state == .verified else { throw Self.wrongState("Confirm the email before setting the PIN.") }
        guard let bytes = Base64URL.decode(body.publicKey), (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else {
            throw OAuthError.invalidRequest("public_key must be an uncompressed P-256 public key (x9.63), base64url.")
        }
        let activated = try await database.transaction { [deviceIdentities, audit] _ in
            guard try await deviceIdentities.activate(identity.id, publicKey: body.publicKey) else { return false }
            try await audit.record(.deviceIdentityRegistered, user: identity.userID, details: ["identity": identity.id])
            return true
        }
        guard activated else { throw Self.wrongState("Confirm the email before setting the PIN.") }
        logger.info("Device identity registered", metadata: ["identity": "\(identity.id)"])
        var registered = identity
        registered.state = .registered
        registered.pinFailures = 0
        var answer = try status(of: registered)
        if let userID = identity.userID { answer.username = try await users.find(id: userID)?.username }
        return JSONResponse.make(answer)
    }

    /// The server's OPRF evaluation of a blinded PIN; a malformed element is the client's error.
    func evaluate(_ blindedElement: String, for identity: DeviceIdentity) throws -> String {
        do {
            return try pinKeys.evaluate(blindedElement, sealed: identity.sealedOPRFKey)
        } catch PINKeyring.Failure.invalidElement {
            throw OAuthError.invalidRequest("blinded_element must be an RFC 9497 serialized P-384 element, base64url.")
        }
    }

    static func wrongState(_ description: String) -> OAuthError {
        OAuthError(.invalidState, description)
    }
}
