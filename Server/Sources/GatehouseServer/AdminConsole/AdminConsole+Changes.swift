import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// How the console's forms change anything: each checked against the browser's token (CSRF) and the role, made with
/// the person at the console as the actor, and answered by the page again (post/redirect/get).
extension AdminConsole {
    /// What a page says after a change (`done=`): fixed words, so a link cannot make the page say anything else.
    static let notices = [
        "locked": "The account was locked: its sessions and tokens ended.",
        "unlocked": "The account was unlocked, and its wrong guesses forgotten.",
        "session_ended": "That browser was signed out.",
        "signed_out": "Every browser was signed out and every token revoked.",
        "password_change_required": "The person must choose a new password at their next sign-in.",
        "factors_reset": "The second factors were removed: the person sets one up again at their next sign-in.",
        "profile_saved": "The profile was saved.",
        "created": "The account was made.",
        "passkey_removed": "The passkey was removed.",
        "identity_unlinked": "The identity was unlinked.",
        "device_unblocked": "The authenticator app may be used again.",
        "device_removed": "The authenticator app was removed; it must register again.",
        "consent_revoked": "The consent was revoked with the client's tokens.",
        "grant_revoked": "The sign-in's tokens were revoked.",
        "client_saved": "The client was saved.",
        "resource_saved": "The resource was saved.",
        "role_granted": "The role was given.",
        "role_revoked": "The role was taken away.",
    ]

    /// Runs `body` with a posted form once it may change anything: the CSRF token first (a forged cross-site form has
    /// none of the browser's), then the sign-in and the role (`needs`); else the answer that refuses it (403 for a
    /// forged form or a role that may not, or the sign-in).
    func submitted(
        _ request: Request, needs: AdminRole = .operator, _ body: (Operator, FormParameters) async throws -> Response
    ) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request) else {
            return PageRenderer.error(title: "Invalid request", message: "The form could not be read.")
        }
        guard cookies.sessionFormTokenMatches(.console, form, in: request) else {
            return PageRenderer.error(title: "Page expired", message: "The form expired. Open the admin console again.", status: .forbidden)
        }
        switch try await access(request) {
        case .signIn(let user): return try await signIn(request, as: user)
        case .noRole: return Self.noRole
        case .allowed(let person) where !person.role.canChange:
            return PageRenderer.error(
                title: "Not allowed", message: "Your role in the admin console (viewer) lets you see, not change.", status: .forbidden)
        case .allowed(let person) where needs == .admin && person.role != .admin:
            return PageRenderer.error(title: "Not allowed", message: "Only an admin gives and takes roles in the admin console.", status: .forbidden)
        case .allowed(let person): return try await body(person, form)
        }
    }

    /// The page at `path` again after a change, saying `done` (a key of ``notices``).
    func back(to path: String, done: String) -> Response {
        Redirect.to(Self.path + path + "?done=" + done, afterPost: true)
    }

    /// The answer to a form that asked for a change this console does not make.
    static let unknownChange = PageRenderer.error(title: "Invalid request", message: "The form asked for a change the console does not make.")

    /// What a refused change says on the page shown again: a precondition that failed means the form was filled from
    /// a version that has changed since.
    static func explain(_ problem: AdminProblem) -> String {
        problem.status == .preconditionFailed ? "It changed since this page was shown; it is shown again as it is now." : problem.detail
    }

    /// The status of the page that shows `problem`: 403 for what the person's role does not allow, else 400.
    static func status(of problem: AdminProblem) -> HTTPResponse.Status {
        problem.status == .forbidden ? .forbidden : .badRequest
    }

    /// The notice `request`'s query names (`done=`), if it is one of ``notices``.
    static func notice(in request: Request) -> String? {
        FormParameters(encoded: request.uri.query ?? "")["done"].flatMap { notices[$0] }
    }

    /// A form's text field: trimmed, `nil` when absent or empty.
    static func text(_ form: FormParameters, _ name: String) -> String? {
        form[name].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `row` without its empty texts: Mustache counts an empty text as there, so a section such as `{{#address}}` would
    /// show its words around nothing.
    static func present(_ row: [String: Any]) -> [String: Any] {
        row.filter { !(($0.value as? String)?.isEmpty ?? false) }
    }

    /// A form's list: one item per line or space.
    static func list(_ form: FormParameters, _ name: String) -> [String] {
        (form[name] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
    }
}
