import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// The authenticator app's API under `/authenticator`: the service description, device registration
/// (`AuthenticatorController+Registration.swift`) and approving QR sign-ins (`AuthenticatorController+Sessions.swift`).
///
/// Every request names the app in the `Gatehouse-App` header: an app this service does not allow gets 406, one
/// older than the minimum version 412. Requests for an identity carry its device secret as a bearer token.
struct AuthenticatorController: Sendable {
    let users: UserStore
    let deviceIdentities: DeviceIdentityStore
    let appLogins: AppLoginStore
    let oneTimeCodes: OneTimeCodeStore
    let audit: AuditLog
    /// Where a state change and its audit event commit together.
    let database: any Database
    let courier: Courier
    /// Counts device registrations per address.
    let guesses: AttemptLimiter
    /// Counts wrong confirmation codes, with the other code checks.
    let codeGuesses: CodeGuesses
    /// Evaluates PINs blindly (OPRF) with each identity's sealed key.
    let pinKeys: PINKeyring
    let policy: AuthenticatorPolicy
    /// Seconds a confirmation code lives (`one_time_codes.lifetime`).
    let codeLifetime: Int64
    /// The server's base URL, named in the service description.
    let issuer: String
    /// How messages name this server (its host), in emails sent to confirm a device.
    let serverName: String
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    let clock: UnixClock
    let logger: Logger

    /// How apps name this service: the configured name, else the server's host.
    var serviceName: String { policy.serviceName ?? serverName }

    /// An absolute URL on this server.
    func url(_ path: String) -> String { issuer + path }
    private static let appHeader = HTTPField.Name(PINProtocol.appHeader)!

    /// Adds the routes of the authenticator protocol; each checks first that the request names an allowed app.
    func addRoutes<Context: RequestContext>(to api: some RouterMethods<Context>) {
        let router = api.group().add(middleware: AppCheck<Context>(controller: self))
        router.get("/authenticator") { request, _ in try describe() }
        router.post("/authenticator/registration") { request, context in
            try await startRegistration(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.post("/authenticator/registration/resend") { request, _ in try await resendVerification(request) }
        router.post("/authenticator/registration/verification") { request, context in
            try await verify(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.post("/authenticator/registration/pin-evaluation") { request, _ in try await evaluateNewPIN(request) }
        router.post("/authenticator/registration/activation") { request, _ in try await activate(request) }
        router.get("/authenticator/identity") { request, _ in try await identityStatus(request) }
        router.delete("/authenticator/identity") { request, _ in try await deleteIdentity(request) }
        router.put("/authenticator/identity/push") { request, _ in try await registerPush(request) }
        router.delete("/authenticator/identity/push") { request, _ in try await unregisterPush(request) }
        router.post("/authenticator/sessions") { request, _ in try await claimSession(request) }
        router.get("/authenticator/sessions/:session") { request, context in
            try await pushedSession(request, sessionID: context.parameters.get("session") ?? "")
        }
        router.post("/authenticator/sessions/:session/pin-evaluation") { request, context in
            try await evaluatePIN(request, sessionID: context.parameters.get("session") ?? "")
        }
        router.post("/authenticator/sessions/:session/approval") { request, context in
            try await approve(
                request, sessionID: context.parameters.get("session") ?? "", source: ClientAddress(of: request, context: context, trusting: proxies))
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
                serviceName: serviceName, logoURL: policy.logoURL, issuer: issuer, pinLength: policy.pinLength,
                verificationMethods: [policy.verification.rawValue], minimumAppVersion: policy.minimumAppVersion,
                endpoints: AuthenticatorEndpoints(
                    registration: url("/authenticator/registration"), identity: url("/authenticator/identity"),
                    sessions: url("/authenticator/sessions"))
            ))
    }

    /// The identity whose device secret the request carries as `Authorization: Bearer`.
    func device(_ request: Request) async throws -> DeviceIdentity {
        guard let secret = AuthorizationCredentials.of("Bearer", in: request.headers), !secret.isEmpty,
            let identity = try await deviceIdentities.find(secret: secret)
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
            oprfPublicKey: hasKey ? try pinKeys.publicKey(sealed: identity.sealedOPRFKey) : nil,
            username: nil, attemptsRemaining: identity.state == .registered ? max(0, policy.maxPINAttempts - identity.pinFailures) : nil
        )
    }

    func identityStatus(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        var answer = try status(of: identity)
        if identity.state != .registrationStarted, let userID = identity.userID {
            answer.username = try await users.find(id: userID)?.username
        }
        return JSONResponse.make(answer)
    }

    func deleteIdentity(_ request: Request) async throws -> Response {
        let identity = try await device(request)
        _ = try await deviceIdentities.delete(identity.id)
        logger.info("Device identity deleted by its device", metadata: ["identity": "\(identity.id)"])
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
