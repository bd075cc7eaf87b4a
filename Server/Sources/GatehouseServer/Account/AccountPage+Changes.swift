import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// What the account page's forms change: each checked against the browser's token (CSRF), made with the person as the
/// actor, and answered by the page again (post/redirect/get) saying what happened.
extension AccountPage {
    /// Applies the change the form names (`change`), from `source`.
    func change(_ request: Request, source: ClientAddress) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request) else {
            return PageRenderer.error("page.invalid_request.title", "account.form_unreadable", wording: localizer.wording(for: request))
        }
        // CSRF: the form must carry the token of this browser's session.
        guard cookies.sessionFormTokenMatches(.account, form, in: request) else {
            return PageRenderer.error("page.expired.title", "account.form_expired", status: .forbidden, wording: localizer.wording(for: request))
        }
        guard let current = try await signedIn(request) else { return try await signIn(request, as: nil) }
        let user = current.user
        let operations = operations("user:\(user.id)")
        // Ways to sign in, like the factors: removing one needs a recent sign-in; the form is then sent again.
        if Self.removesAWayIn.contains(form["change"] ?? ""), !isRecent(current) { return try await signIn(request, as: user) }
        do {
            switch form["change"] {
            case "language":
                _ = try await operations.setLocale(of: user.id, to: form["locale"] ?? "")
                return Self.back("done=language_changed")
            case "names":
                _ = try await operations.setNames(
                    of: user.id, name: form["name"] ?? "", givenName: form["given_name"] ?? "", familyName: form["family_name"] ?? "")
                return Self.back("done=names_changed")
            case "revoke_app":
                try await operations.revokeConsent(to: form["client_id"] ?? "", of: user.id)
                return Self.back("done=app_revoked")
            case "end_session":
                let handle = form["session"] ?? ""
                // This browser signs out at /logout, which clears its cookie too.
                guard handle != current.handle else { return Self.back("problem=gone") }
                try await operations.endBrowserSession(handle, of: user.id)
                return Self.back("done=session_ended")
            case "end_other_sessions":
                for session in try await operations.browserSessions(of: user.id) where session.id != current.handle {
                    try await operations.endBrowserSession(session.id, of: user.id)
                }
                return Self.back("done=others_ended")
            case "revoke_grant":
                _ = try await operations.revokeGrant(form["grant"] ?? "", of: user.id)
                return Self.back("done=grant_revoked")
            case "two_step":
                // The journey that changes two-step verification, on the hosted pages, signing in first; then back here.
                return try await signIn(request, as: user, kind: .enrollment, done: "two_step_changed")
            case "remove_factor":
                return try await removeFactor(current, form["factor"].flatMap(SecondFactor.init(rawValue:)), request: request)
            case "rename_passkey":
                _ = try await operations.renamePasskey(form["passkey"] ?? "", of: user.id, to: form["name"] ?? "")
                return Self.back("done=passkey_renamed")
            case "remove_passkey":
                try await operations.removeOwnPasskey(form["passkey"] ?? "", of: user.id)
                try await loginFlow.notify(user, .signInMethodRemoved)
                return Self.back("done=passkey_removed")
            case "remove_device":
                try await operations.deleteOwnDevice(form["device"] ?? "", of: user.id)
                try await loginFlow.notify(user, .signInMethodRemoved)
                return Self.back("done=device_removed")
            case "unlink_identity":
                try await operations.unlinkIdentity(at: form["provider"] ?? "", of: user.id)
                try await loginFlow.notify(user, .signInMethodRemoved)
                return Self.back("done=identity_unlinked")
            case "password":
                return try await changePassword(current, form: form, request: request, source: source)
            case "request_email", "request_phone":
                return try await requestContactChange(current, form["change"] == "request_email" ? .email : .phone, form: form, request: request)
            case "confirm_email", "confirm_phone":
                let contact: ContactChange.Contact = form["change"] == "confirm_email" ? .email : .phone
                return try await confirmContactChange(current, contact, form: form, request: request, source: source)
            case "delete":
                return try await delete(current, confirmation: form["confirm_username"] ?? "", request: request)
            default:
                return PageRenderer.error(
                    "page.invalid_request.title", "account.change_unknown", wording: localizer.wording(for: request, preference: user.locale))
            }
        } catch let problem as AdminProblem where problem.status == .notFound {
            return Self.back("problem=gone")
        } catch let problem as AdminProblem where problem.status == .conflict || problem.status == .badRequest {
            return try await show(request, problem: problem.messageForOwner, status: problem.status)
        }
    }

    /// The changes that remove a way to sign in other than a second factor.
    static let removesAWayIn: Set<String> = ["remove_passkey", "remove_device", "unlink_identity"]

    /// Deletes the account: its name typed again, and a sign-in younger than `reauthenticate_after` (else the person
    /// signs in again and comes back). Its tokens, sessions, factors and consents go with it; the trail keeps the event.
    func delete(_ current: SignedIn, confirmation: String, request: Request) async throws -> Response {
        guard confirmation.lowercased() == current.user.username.lowercased() else { return Self.back("problem=confirm") }
        guard isRecent(current) else { return try await signIn(request, as: current.user) }
        try await operations("user:\(current.user.id)").deleteUser(id: current.user.id)
        try await loginFlow.notify(current.user, .accountDeleted)
        let say = localizer.wording(for: request, preference: current.user.locale)
        var response = PageRenderer.page(title: say("account.deleted.title").text, template: "account-deleted", [:], wording: say)
        response.headers.append(cookies.clearCookie(cookies.sessionName))
        return response
    }

    /// Changes the password: the current one checked as a sign-in's is (the same limits per account and per source),
    /// the new one against the password policy, a sign-in younger than `reauthenticate_after`. Every other session
    /// and token ends; this browser gets a new session, and the owner a notice.
    func changePassword(_ current: SignedIn, form: FormParameters, request: Request, source: ClientAddress) async throws -> Response {
        let user = current.user
        guard isRecent(current) else { return try await signIn(request, as: user) }
        guard user.hasPassword else {
            return try await show(request, problem: MessageReference("account.password.none"))
        }
        let given = form["current_password"] ?? "", chosen = form["new_password"] ?? ""
        let device = deviceCookies.verify(cookies.value(cookies.deviceName, in: request))
        let checked = try await loginFlow.authenticator.authenticate(
            username: user.username, password: given, source: source, devices: device.map { [$0] } ?? [], clientID: Self.clientID)
        switch checked {
        case .authenticated: break
        case .invalidCredentials: return try await show(request, problem: MessageReference("account.problem.wrong_password"), status: .unauthorized)
        case .throttled: return try await show(request, problem: MessageReference(LoginMessages.throttled), status: .tooManyRequests)
        case .locked: return try await signIn(request, as: nil)
        }
        guard chosen != given else { return try await show(request, problem: MessageReference("flow.password_change.same"), status: .badRequest) }
        if let problem = passwords.passwordProblem(with: chosen, username: user.username, email: user.email) {
            return try await show(request, problem: problem, status: .badRequest)
        }
        do {
            try await operations("user:\(user.id)").setPassword(chosen, of: user.id)
        } catch let problem as AdminProblem where problem.status == .badRequest {
            return try await show(request, problem: problem.messageForOwner, status: .badRequest)
        }
        try await loginFlow.notify(user, .passwordChanged)
        // Every session ended with the old password, this one too: this browser, which just proved the password, gets a new one.
        let started = try await sessions.start(userID: user.id, methods: current.session.methods, lifetime: sessionLifetime, replacing: nil)
        var response = Self.back("done=password_changed")
        response.headers.append(cookies.setCookie(cookies.sessionName, started.id, maxAge: sessionLifetime))
        return response
    }

    /// The factors the page lists, one entry each: a phone is one factor whichever way its codes come.
    static func removable(_ factors: [SecondFactor]) -> [SecondFactor] {
        // Pushes go with their device identity (deleted in the app, or by an operator with `gatehouse devices`).
        factors.filter { $0 != .voice && $0 != .passkey && $0 != .recoveryCode && $0 != .push }
    }

    /// The key of what the page calls `factor`.
    static func nameKey(of factor: SecondFactor) -> String {
        switch factor {
        case .sms, .voice: "account.two_step.phone"
        case .totp: "account.two_step.totp"
        case .email, .passkey, .recoveryCode, .push: factor.labelKey
        }
    }

    /// Removes a second factor, after a recent sign-in; audited and told to the owner (whoever removed it could sign in).
    func removeFactor(_ current: SignedIn, _ factor: SecondFactor?, request: Request) async throws -> Response {
        guard let factor else {
            return PageRenderer.error(
                "page.invalid_request.title", "account.factor_unknown", wording: localizer.wording(for: request, preference: current.user.locale))
        }
        guard isRecent(current) else { return try await signIn(request, as: current.user) }
        let user = current.user
        let removed = try await database.transaction { [authenticators, audit] _ in
            guard try await authenticators.remove(factor, userID: user.id) else { return false }
            try await audit.record(.factorRemoved, user: user.id, actor: "user:\(user.id)", details: ["factor": factor.rawValue])
            return true
        }
        guard removed else { return Self.back("problem=gone") }
        try await loginFlow.notify(user, .factorRemoved)
        return Self.back("done=factor_removed")
    }

    /// Whether `current` signed in within `account.reauthenticate_after`, as sensitive changes need.
    func isRecent(_ current: SignedIn) -> Bool {
        clock.now() - current.session.authTime <= policy.reauthenticateAfter
    }

    /// Back to the page after a change (post/redirect/get), with what to say.
    static func back(_ query: String) -> Response {
        Redirect.to(path + "?" + query, afterPost: true)
    }
}
