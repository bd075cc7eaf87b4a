import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The authenticator app's API under `/authenticator`: the service description, device registration
/// (`AuthenticatorController+Registration.swift`) and approving QR sign-ins (`AuthenticatorController+Sessions.swift`).
///
/// Every request names the app in the `Gatehouse-App` header: an app this service does not allow gets 406, one
/// older than the minimum version 412. Requests for an identity carry its device secret as a bearer token.
struct AuthenticatorController: Sendable {
    let server: IdentityServer

    var policy: AuthenticatorPolicy { server.configuration.authenticator }
    /// How apps name this service: the configured name, else the server's host.
    var serviceName: String { policy.serviceName ?? server.serviceName }
    private static let appHeader = HTTPField.Name(PINProtocol.appHeader)!

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/authenticator") { request, _ in await answer(request) { try describe() } }
        router.post("/authenticator/registration") { request, context in
            await answer(request) { try await startRegistration(request, source: server.clientAddress(of: request, context: context)) }
        }
        router.post("/authenticator/registration/resend") { request, _ in await answer(request) { try await resendVerification(request) } }
        router.post("/authenticator/registration/verification") { request, context in
            await answer(request) { try await verify(request, source: server.clientAddress(of: request, context: context)) }
        }
        router.post("/authenticator/registration/pin-evaluation") { request, _ in await answer(request) { try await evaluateNewPIN(request) } }
        router.post("/authenticator/registration/activation") { request, _ in await answer(request) { try await activate(request) } }
        router.get("/authenticator/identity") { request, _ in await answer(request) { try await identityStatus(request) } }
        router.delete("/authenticator/identity") { request, _ in await answer(request) { try await deleteIdentity(request) } }
        router.post("/authenticator/sessions") { request, _ in await answer(request) { try await claimSession(request) } }
        router.post("/authenticator/sessions/:session/pin-evaluation") { request, context in
            await answer(request) { try await evaluatePIN(request, sessionID: context.parameters.get("session") ?? "") }
        }
        router.post("/authenticator/sessions/:session/approval") { request, context in
            await answer(request) { try await approve(request, sessionID: context.parameters.get("session") ?? "") }
        }
        router.post("/authenticator/sessions/:session/abort") { request, context in
            await answer(request) { try await abort(request, sessionID: context.parameters.get("session") ?? "") }
        }
        DeviceConfirmationPage(server: server).addRoutes(to: router)
    }

    /// Checks the app, then runs `body`, answering every failure as RFC 6749-style JSON.
    private func answer(_ request: Request, _ body: () async throws -> Response) async -> Response {
        await OAuthError.answering(logger: server.logger) {
            try checkApp(request.headers[Self.appHeader])
            return try await body()
        }
    }

    /// 406 for an app this service does not allow (or one that does not say what it is), 412 for an outdated one.
    func checkApp(_ header: String?) throws {
        let parts = header?.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        guard parts.count == 2, !parts[0].isEmpty, let version = AppVersion(parts[1]) else {
            throw OAuthError("app_not_allowed", "Name the app and its version in the \(PINProtocol.appHeader) header, e.g. \(PINProtocol.appHeader): my-app/1.0.0.",
                             status: .notAcceptable)
        }
        guard policy.allowedApps.isEmpty || policy.allowedApps.contains(parts[0]) else {
            throw OAuthError("app_not_allowed", "The app \(parts[0]) cannot be used with this service.", status: .notAcceptable)
        }
        if let minimum = AppVersion(policy.minimumAppVersion), version < minimum {
            throw OAuthError("app_version_unsupported", "This service needs version \(minimum) of the app or later; update the app.",
                             status: .preconditionFailed)
        }
    }

    func describe() throws -> Response {
        JSONResponse.make(AuthenticatorServiceDescription(
            serviceName: serviceName, logoURL: policy.logoURL, issuer: server.issuer, pinLength: policy.pinLength,
            verificationMethods: [policy.verification.rawValue], minimumAppVersion: policy.minimumAppVersion,
            endpoints: AuthenticatorEndpoints(registration: server.url("/authenticator/registration"), identity: server.url("/authenticator/identity"),
                                              sessions: server.url("/authenticator/sessions"))
        ))
    }

    /// The identity whose device secret the request carries as `Authorization: Bearer`.
    func device(_ request: Request) async throws -> DeviceIdentity {
        guard let secret = AuthorizationCredentials.of("Bearer", in: request.headers), !secret.isEmpty,
              let identity = try await server.deviceIdentities.find(secret: secret)
        else {
            throw OAuthError("invalid_device", "This device identity is unknown or its registration expired; register it again.", status: .unauthorized)
        }
        return identity
    }

    /// What the app shows for `identity`; blocked once its wrong PINs reach the limit.
    func status(of identity: DeviceIdentity) throws -> DeviceIdentityStatus {
        let hasKey = identity.state != .registrationStarted
        return DeviceIdentityStatus(
            state: identity.state(limit: policy.maxPINAttempts).rawValue,
            oprfPublicKey: hasKey ? try server.pinKeys.publicKey(sealed: identity.sealedOPRFKey) : nil,
            username: nil, attemptsRemaining: identity.state == .registered ? max(0, policy.maxPINAttempts - identity.pinFailures) : nil
        )
    }

    func identityStatus(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        var answer = try status(of: identity)
        if identity.state != .registrationStarted, let userID = identity.userID {
            answer.username = try await server.users.find(id: userID)?.username
        }
        return JSONResponse.make(answer)
    }

    func deleteIdentity(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        _ = try await server.deviceIdentities.delete(identity.id)
        server.logger.info("Device identity deleted by its device", metadata: ["identity": "\(identity.id)"])
        return Response(status: .noContent)
    }

    static func blocked() -> OAuthError {
        OAuthError("identity_blocked", "This device identity is blocked after too many wrong PINs; delete it and register the device again.",
                   status: .forbidden, attemptsRemaining: 0)
    }
}
