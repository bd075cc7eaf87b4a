import Foundation
import GatehouseDomain
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

    /// Adds the routes of the authenticator protocol; each checks first that the request names an allowed app.
    func addRoutes<Context: RequestContext>(to api: some RouterMethods<Context>) {
        let router = api.group().add(middleware: AppCheck<Context>(controller: self))
        router.get("/authenticator") { request, _ in try describe() }
        router.post("/authenticator/registration") { request, context in
            try await startRegistration(request, source: server.clientAddress(of: request, context: context))
        }
        router.post("/authenticator/registration/resend") { request, _ in try await resendVerification(request) }
        router.post("/authenticator/registration/verification") { request, context in
            try await verify(request, source: server.clientAddress(of: request, context: context))
        }
        router.post("/authenticator/registration/pin-evaluation") { request, _ in try await evaluateNewPIN(request) }
        router.post("/authenticator/registration/activation") { request, _ in try await activate(request) }
        router.get("/authenticator/identity") { request, _ in try await identityStatus(request) }
        router.delete("/authenticator/identity") { request, _ in try await deleteIdentity(request) }
        router.post("/authenticator/sessions") { request, _ in try await claimSession(request) }
        router.post("/authenticator/sessions/:session/pin-evaluation") { request, context in
            try await evaluatePIN(request, sessionID: context.parameters.get("session") ?? "")
        }
        router.post("/authenticator/sessions/:session/approval") { request, context in
            try await approve(request, sessionID: context.parameters.get("session") ?? "")
        }
        router.post("/authenticator/sessions/:session/abort") { request, context in
            try await abort(request, sessionID: context.parameters.get("session") ?? "")
        }
    }

    /// 406 for an app this service does not allow (or one that does not say what it is), 412 for an outdated one.
    func checkApp(_ header: String?) throws {
        let parts = header?.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        guard parts.count == 2, !parts[0].isEmpty, let version = AppVersion(parts[1]) else {
            throw OAuthError(
                .appNotAllowed, "Name the app and its version in the \(PINProtocol.appHeader) header, e.g. \(PINProtocol.appHeader): my-app/1.0.0.")
        }
        guard policy.allowedApps.isEmpty || policy.allowedApps.contains(parts[0]) else {
            throw OAuthError(.appNotAllowed, "The app \(parts[0]) cannot be used with this service.")
        }
        if let minimum = AppVersion(policy.minimumAppVersion), version < minimum {
            throw OAuthError(.appVersionUnsupported, "This service needs version \(minimum) of the app or later; update the app.")
        }
    }

    func describe() throws -> Response {
        JSONResponse.make(
            AuthenticatorServiceDescription(
                serviceName: serviceName, logoURL: policy.logoURL, issuer: server.issuer, pinLength: policy.pinLength,
                verificationMethods: [policy.verification.rawValue], minimumAppVersion: policy.minimumAppVersion,
                endpoints: AuthenticatorEndpoints(
                    registration: server.url("/authenticator/registration"), identity: server.url("/authenticator/identity"),
                    sessions: server.url("/authenticator/sessions"))
            ))
    }

    /// The identity whose device secret the request carries as `Authorization: Bearer`.
    func device(_ request: Request) async throws -> DeviceIdentity {
        guard let secret = AuthorizationCredentials.of("Bearer", in: request.headers), !secret.isEmpty,
            let identity = try await server.deviceIdentities.find(secret: secret)
        else {
            throw OAuthError(.invalidDevice, "This device identity is unknown or its registration expired; register it again.")
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
        OAuthError(
            .identityBlocked, "This device identity is blocked after too many wrong PINs; delete it and register the device again.", attemptsRemaining: 0)
    }
}

extension AuthenticatorController {
    /// Refuses requests from apps the service does not allow (406) or from outdated ones (412), before any route runs.
    struct AppCheck<Context: RequestContext>: RouterMiddleware {
        let controller: AuthenticatorController

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            try controller.checkApp(request.headers[AuthenticatorController.appHeader])
            return try await next(request, context)
        }
    }
}
