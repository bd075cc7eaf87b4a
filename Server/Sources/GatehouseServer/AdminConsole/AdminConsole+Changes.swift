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

    /// A posted form, taken or refused.
    enum Submission {
        /// Its token matches the browser's and its sender may change things.
        case allowed(Operator, FormParameters)
        /// The answer that refuses it: a page (403 for a forged form or a viewer), or the sign-in.
        case refused(Response)
    }

    /// Reads a posted form and checks it may change anything: the CSRF token first (a forged cross-site form has
    /// none of the browser's), then the sign-in and the role.
    func submission(_ request: Request) async throws -> Submission {
        guard let form = try? await FormParameters.body(of: request) else {
            return .refused(PageRenderer.error(title: "Invalid request", message: "The form could not be read."))
        }
        guard let cookie = cookies.value(cookies.consoleName, in: request), let token = form["csrf_token"], ConstantTime.equals(cookie, token) else {
            return .refused(
                PageRenderer.error(title: "Page expired", message: "The form expired. Open the admin console again.", status: .forbidden))
        }
        switch try await access(request) {
        case .signIn(let user): return .refused(try await signIn(request, as: user))
        case .noRole: return .refused(Self.noRole)
        case .allowed(let person) where !person.role.canChange:
            return .refused(
                PageRenderer.error(
                    title: "Not allowed", message: "Your role in the admin console (viewer) lets you see, not change.", status: .forbidden))
        case .allowed(let person): return .allowed(person, form)
        }
    }

    /// Applies the change the form on user `userID`'s page names (`change`).
    func change(_ request: Request, userID: String) async throws -> Response {
        let (person, form): (Operator, FormParameters)
        switch try await submission(request) {
        case .refused(let answer): return answer
        case .allowed(let allowed, let posted): (person, form) = (allowed, posted)
        }
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
