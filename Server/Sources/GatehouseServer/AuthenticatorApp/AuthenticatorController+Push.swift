import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseProtocol
import Hummingbird

/// Pushes to the authenticator app: the identity registers where its pushes go; a pushed sign-in is read by its
/// session id (with the three numbers to choose from), approved with the number and the PIN, or denied, and a
/// denial the person reports ("this wasn't me") or a wrong number is audited and told to the account's owner.
extension AuthenticatorController {
    func registerPush(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        let body = try await JSONRequest.decode(DevicePushRegistration.self, from: request)
        let token = body.token.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= 4096, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw OAuthError.invalidRequest("token must be the platform's push token: up to 4096 printable characters.")
        }
        guard try await deviceIdentities.setPush(identity.id, to: PushTarget(platform: body.platform, token: token)) else {
            throw Self.wrongState("Finish registering this device (confirm the email, set the PIN) before registering for pushes.")
        }
        logger.info("Push token registered", metadata: ["identity": "\(identity.id)", "platform": "\(body.platform.rawValue)"])
        return Response(status: .noContent)
    }

    func unregisterPush(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        _ = try await deviceIdentities.setPush(identity.id, to: nil)
        return Response(status: .noContent)
    }

    /// A pushed sign-in as the app shows it: who asks, from where, and the three numbers.
    func pushedSession(_ request: Request, sessionID: String) async throws -> Response {
        let identity = try await device(request)
        guard let pushed = try await appLogins.pushed(sessionID, identityID: identity.id), let userID = identity.userID,
            let user = try await users.find(id: userID)
        else { throw OAuthError.sessionExpired }
        return JSONResponse.make(session(pushed.claimed, username: user.username, numberChoices: pushed.numberChoices))
    }

    /// For a pushed session: the number the person picked must be the browser's (`expected`). Counted like a second
    /// factor's code (per account and per client address); a wrong one denies the sign-in, is audited and told to the owner.
    func checkNumber(_ picked: Int?, expected: Int, sessionID: String, identity: DeviceIdentity, source: ClientAddress) async throws {
        guard let userID = identity.userID else { throw OAuthError.sessionExpired }
        let ticket: AttemptLimiter.Ticket
        switch try await codeGuesses.admit(.secondFactor, subject: "user:" + userID, source: source) {
        case .blocked(let until, _):
            throw OAuthError(.tooManyAttempts, "Too many wrong answers; try again in \(codeGuesses.minutesLeft(until: until)) minutes.")
        case .admitted(let admitted):
            ticket = admitted
        }
        let right = picked == expected
        try await codeGuesses.settle(ticket, correct: right, of: .secondFactor) { try await users.find(id: userID) }
        guard !right else { return }
        _ = try await appLogins.abort(sessionID, identityID: identity.id)
        try await denied(identity, reason: "wrong_number")
        throw OAuthError(.wrongNumber, "That is not the number on the sign-in page, so the sign-in was denied.")
    }

    /// Records a denied push and tells the account's owner, by a security notice to the verified address.
    func denied(_ identity: DeviceIdentity, reason: String) async throws {
        try await audit.record(.pushDenied, user: identity.userID, details: ["identity": identity.id, "reason": reason])
        logger.notice("A sign-in push was denied", metadata: ["identity": "\(identity.id)", "reason": "\(reason)"])
        guard let userID = identity.userID, let user = try await users.find(id: userID), user.emailVerified else { return }
        try await courier.send(.pushDenied, to: user.email, on: .email, service: serverName, codeLifetime: 0, language: courier.language(of: user))
    }
}
