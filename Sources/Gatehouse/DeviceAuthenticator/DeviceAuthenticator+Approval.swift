import Crypto
import Foundation
import GatehouseProtocol

/// Approving sign-ins: from a QR code on another screen, or directly in this app.
extension DeviceAuthenticator {
    /// Claims the sign-in behind a scanned code with identity `identityID` (or the only registered identity for that
    /// service), and returns who asks, for the person to decide.
    /// - Throws: ``DeviceAuthenticatorError/sessionExpired`` when the code expired or was used already.
    ///   ``DeviceAuthenticatorError/untrustedService(_:)`` for a service outside ``trustedServices``.
    public func begin(_ payload: QRLoginPayload, identityID: String? = nil) async throws(DeviceAuthenticatorError) -> PendingApproval {
        try checkTrusted(payload.serviceURL)
        let record = try await approvingIdentity(for: payload.serviceURL, identityID: identityID)
        do {
            let session = try await connection.send(
                "POST", endpoint(record, \.sessions), body: AuthenticatorSessionRequest(accessCode: payload.accessCode),
                secret: record.deviceSecret, as: AuthenticatorSession.self)
            return PendingApproval(session, identityID: record.id)
        } catch .identityBlocked {
            try await markBlocked(record)
            throw .identityBlocked
        }
    }

    /// Approves `request` with `pin`. The server counts the attempt before answering; a wrong PIN is noticed on the
    /// device (the signing key does not open) and reported with the attempts left.
    /// - Throws: ``DeviceAuthenticatorError/wrongPIN(attemptsRemaining:)``; ``DeviceAuthenticatorError/identityBlocked`` after the
    ///   last allowed wrong PIN (the identity is marked blocked); ``DeviceAuthenticatorError/sessionExpired``.
    public func approve(_ request: PendingApproval, pin: String) async throws(DeviceAuthenticatorError) {
        try await approve(request, pin: pin, number: nil)
    }

    /// Approves with `pin`, and for a pushed sign-in the `number` picked.
    func approve(_ request: PendingApproval, pin: String, number: Int?) async throws(DeviceAuthenticatorError) {
        let record = try await identity(request.identityID)
        guard PINProtocol.isWellFormed(pin, length: record.pinLength) else { throw .malformedPIN(length: record.pinLength) }
        guard record.state == .registered, let serverKey = record.oprfPublicKey, let sealed = record.sealedSigningKey else {
            throw record.state == .blocked ? .identityBlocked : .wrongState(StringCatalog.text("device.state.finish_registering", languages: ["en"]))
        }
        let credential = try PINCredential(identityID: record.id, oprfPublicKey: serverKey)
        let blinded = try credential.blind(pin)
        let sessionURL = endpoint(record, \.sessions) + "/" + request.sessionID
        let evaluation: PINEvaluation
        do {
            evaluation = try await connection.send(
                "POST", sessionURL + "/pin-evaluation",
                body: PINEvaluationRequest(blindedElement: Base64URL.encode(blinded.blindedElement.oprfRepresentation)),
                secret: record.deviceSecret, as: PINEvaluation.self)
        } catch .identityBlocked {
            try await markBlocked(record)
            throw .identityBlocked
        }
        guard let signingKey = credential.open(sealed, with: try credential.sealingKey(blinded, evaluation: evaluation.evaluation)),
            let challenge = evaluation.challenge
        else {
            let remaining = evaluation.attemptsRemaining ?? 0
            if remaining <= 0 {
                try await markBlocked(record)
                throw .identityBlocked
            }
            throw .wrongPIN(attemptsRemaining: remaining)
        }
        let signature = try? signingKey.signature(for: PINProtocol.approvalMessage(sessionID: request.sessionID, challenge: challenge))
        guard let signature else { throw .storage("the signing key could not sign") }
        try await connection.raw(
            "POST", sessionURL + "/approval", body: AuthenticatorApproval(signature: Base64URL.encode(signature.rawRepresentation), number: number),
            secret: record.deviceSecret)
    }

    /// Declines `request`: the page that showed the code says the sign-in was cancelled.
    public func abort(_ request: PendingApproval) async throws(DeviceAuthenticatorError) {
        let record = try await identity(request.identityID)
        try await connection.raw(
            "POST", endpoint(record, \.sessions) + "/" + request.sessionID + "/abort", body: Optional<String>.none,
            secret: record.deviceSecret)
    }

    /// Signs the identity's user in to this app with `pin`, through the app's own native login flow (which must offer
    /// "Sign in with the app"), ending with tokens like any other sign-in.
    public func signIn(with identityID: String, pin: String, client: GatehouseClient) async throws -> UserSession {
        let record = try await identity(identityID)
        let start = await client.start()
        guard case .continue(let first) = start, let appAction = first.submit(.app) else {
            if case .failure(let failure) = start { throw failure.cause }
            throw GatehouseError.unsupportedStep("sign in with the app is not offered to this app")
        }
        guard case .continue(let shown) = await first.next(appAction),
            let content = shown.node.fields.first(where: { $0.kind == .qrCode })?.defaultValue,
            let check = shown.submit(.check)
        else { throw GatehouseError.unsupportedStep(FlowStep.appLogin.rawValue) }
        let payload = try QRLoginPayload(parsing: content)
        let request = try await begin(payload, identityID: record.id)
        try await approve(request, pin: pin)
        switch await shown.next(check) {
        case .success(let success): return success.user
        case .failure(let failure): throw failure.cause
        case .error(let error): throw error.error
        case .continue(let step): throw GatehouseError.unsupportedStep(step.id)
        }
    }

    /// The identity that answers for `serviceURL`: `identityID`, or the only registered one for that service.
    private func approvingIdentity(for serviceURL: URL, identityID: String?) async throws(DeviceAuthenticatorError) -> DeviceIdentityRecord {
        if let identityID {
            let record = try await identity(identityID)
            guard record.serviceURL == serviceURL else {
                throw .wrongState(StringCatalog.text("device.state.other_service", [record.serviceName], languages: ["en"]))
            }
            return record
        }
        let forService = try await identities().filter { $0.serviceURL == serviceURL }
        let candidates = forService.filter { $0.state == .registered }
        guard candidates.count == 1, let only = candidates.first else {
            if candidates.isEmpty { throw forService.contains { $0.state == .blocked } ? .identityBlocked : .unknownIdentity }
            throw .wrongState(StringCatalog.text("device.state.choose_identity", languages: ["en"]))
        }
        return only
    }

    private func markBlocked(_ record: DeviceIdentityRecord) async throws(DeviceAuthenticatorError) {
        var blocked = record
        blocked.state = .blocked
        try await store(blocked)
    }
}
