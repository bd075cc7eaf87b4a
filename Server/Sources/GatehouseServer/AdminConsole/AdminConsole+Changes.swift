import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// What the console's forms change about a person: each checked against the browser's token (CSRF) and the role,
/// made with the person at the console as the actor, and answered by the page again (post/redirect/get).
extension AdminConsole {
    /// What the page says after a change (`done=`): fixed words, so a link cannot make the page say anything else.
    static let notices = [
        "locked": "The account was locked: its sessions and tokens ended.",
        "unlocked": "The account was unlocked, and its wrong guesses forgotten.",
        "session_ended": "That browser was signed out.",
        "password_change_required": "The person must choose a new password at their next sign-in.",
    ]

    /// Runs `body` with a posted form once it may change anything: the CSRF token first (a forged cross-site form has
    /// none of the browser's), then the sign-in and the role; else the answer that refuses it (403 for a forged form
    /// or a viewer, or the sign-in).
    func submitted(_ request: Request, _ body: (Operator, FormParameters) async throws -> Response) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request) else {
            return PageRenderer.error(title: "Invalid request", message: "The form could not be read.")
        }
        guard cookies.formTokenMatches(cookies.consoleName, form, in: request) else {
            return PageRenderer.error(title: "Page expired", message: "The form expired. Open the admin console again.", status: .forbidden)
        }
        switch try await access(request) {
        case .signIn(let user): return try await signIn(request, as: user)
        case .noRole: return Self.noRole
        case .allowed(let person) where !person.role.canChange:
            return PageRenderer.error(
                title: "Not allowed", message: "Your role in the admin console (viewer) lets you see, not change.", status: .forbidden)
        case .allowed(let person): return try await body(person, form)
        }
    }

    /// Applies the change the form on user `userID`'s page names (`change`).
    func change(_ request: Request, userID: String) async throws -> Response {
        try await submitted(request) { person, form in try await change(form, userID: userID, by: person, request: request) }
    }

    private func change(_ form: FormParameters, userID: String, by person: Operator, request: Request) async throws -> Response {
        let operations = operations(person.actor)
        let back = { (done: String) in Redirect.to(Self.path + "/users/" + userID + "?done=" + done, afterPost: true) }
        do {
            switch form["change"] {
            case "lock":
                try await operations.setLocked(userID: userID, true)
                return back("locked")
            case "unlock":
                try await operations.setLocked(userID: userID, false)
                return back("unlocked")
            case "end_session":
                try await operations.endBrowserSession(form["session"] ?? "", of: userID)
                return back("session_ended")
            case "require_password_change":
                try await operations.requirePasswordChange(userID: userID)
                return back("password_change_required")
            default:
                return PageRenderer.error(title: "Invalid request", message: "The form asked for a change the console does not make.")
            }
        } catch let problem as AdminProblem {
            return try await userPage(userID, person, request: request, problem: problem.detail)
        }
    }
}
