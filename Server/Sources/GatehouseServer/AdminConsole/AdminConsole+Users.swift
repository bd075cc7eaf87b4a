import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The console's people: found by a part of their username, email address or name, made, and each on a page of their
/// own with their profile, what they sign in with, where they are signed in, what they allowed clients, and what
/// happened to their account.
extension AdminConsole {
    /// People matching the query's `q`, 50 at a time; `refused` is a new account's form that was refused, shown again
    /// with its `problem`.
    func usersPage(
        _ query: FormParameters, _ person: Operator, refused: FormParameters? = nil, problem: String? = nil, status: HTTPResponse.Status = .badRequest
    ) async throws -> Response {
        let text = query["q"].map { String($0.prefix(100)) }
        let found = try await users.search(text: text?.isEmpty == false ? text : nil, locked: nil, after: query["after"], limit: 50)
        var values = values(person, section: "Users")
        values["q"] = text ?? ""
        values["users"] = found.map { user -> [String: Any] in
            ["id": user.id, "username": user.username, "email": user.email, "name": user.name ?? "", "locked": user.isLocked]
        }
        values["none"] = found.isEmpty
        if found.count == 50, let last = found.last {
            values["next"] = "?" + FormEncoding.encode([("q", text ?? ""), ("after", last.username)])
        }
        if let refused {
            values["new"] = ["username": refused["username"] ?? "", "email": refused["email"] ?? "", "name": refused["name"] ?? ""]
        }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Users · Admin console", template: "admin-users", values, status: problem == nil ? .ok : status)
    }

    /// Makes the account the form describes, with the password policy's check of a password when one is given (else
    /// the person sets one through recovery).
    func createUser(_ form: FormParameters, by person: Operator) async throws -> Response {
        let account = NewAccount(
            username: Self.text(form, "username") ?? "", email: Self.text(form, "email") ?? "", emailVerified: form["email_verified"] == "on",
            name: Self.text(form, "name"), password: form["password"])
        do {
            let created = try await operations(person).createUser(account)
            return back(to: "/users/" + created.id, done: "created")
        } catch let problem as AdminProblem {
            return try await usersPage(FormParameters(encoded: ""), person, refused: form, problem: problem.detail, status: Self.status(of: problem))
        }
    }

    /// One person.
    func userPage(
        _ id: String, _ person: Operator, request: Request? = nil, problem: String? = nil, status: HTTPResponse.Status = .badRequest
    ) async throws -> Response {
        let operations = operations(person)
        guard let user = try? await operations.user(id: id) else {
            return PageRenderer.error(title: "Not found", message: "There is no user with that id.", status: .notFound)
        }
        var values = values(person, section: "Users")
        var shown: [String: Any] = [
            "id": user.id, "username": user.username, "email": user.email, "emailVerified": user.emailVerified, "locked": user.locked,
            "hasPassword": user.hasPassword, "created": Timestamp.format(user.createdAt), "givenName": user.givenName ?? "",
            "familyName": user.familyName ?? "", "phoneVerified": user.phoneNumberVerified,
        ]
        // Left out when there is none: the template shows a row only for what the account has.
        if let name = user.name { shown["name"] = name }
        if let phone = user.phoneNumber { shown["phone"] = phone }
        values["user"] = shown
        values["etag"] = AdminETag.of(user)
        values["action"] = Self.path + "/users/" + user.id
        values["sessions"] = try await operations.browserSessions(of: user.id).map { session -> [String: Any] in
            Self.present([
                "id": session.id, "methods": session.methods.joined(separator: " "), "signedIn": Timestamp.format(session.authenticatedAt),
                "lastSeen": Timestamp.format(session.lastSeenAt), "address": session.address ?? "", "browser": session.userAgent ?? "",
            ])
        }
        values["grants"] = try await operations.grants(of: user.id).map { grant -> [String: Any] in
            [
                "id": grant.id, "client": grant.clientID, "scopes": grant.scopes.joined(separator: " "), "lastIssued": Timestamp.format(grant.lastIssuedAt),
                "refreshable": grant.refreshable,
            ]
        }
        values["passkeys"] = try await operations.passkeys(of: user.id).map { passkey -> [String: Any] in
            [
                "id": passkey.id, "name": passkey.name, "synced": passkey.synced, "created": Timestamp.format(passkey.createdAt),
                "lastUsed": Timestamp.format(passkey.lastUsedAt),
            ]
        }
        values["identities"] = try await operations.identities(of: user.id).map { identity -> [String: Any] in
            Self.present([
                "provider": identity.providerID, "subject": identity.subject, "email": identity.email ?? "", "linked": Timestamp.format(identity.createdAt),
            ])
        }
        values["devices"] = try await operations.devices(of: user.id).map { device -> [String: Any] in
            Self.present([
                "id": device.id, "name": device.deviceName ?? device.id, "state": device.state, "blocked": device.state == "blocked",
                "lastUsed": Timestamp.format(device.lastUsedAt), "push": device.pushPlatform ?? "",
            ])
        }
        values["consents"] = try await operations.consents(of: user.id).map { consent -> [String: Any] in
            ["client": consent.clientID, "scopes": consent.scopes.joined(separator: " "), "updated": Timestamp.format(consent.updatedAt)]
        }
        values["events"] = try await audit.recent(of: user.id, limit: 20).map { event -> [String: Any] in
            ["type": event.type.rawValue, "when": Timestamp.format(event.occurredAt), "actor": event.actor, "address": event.address ?? ""]
        }
        if let notice = request.flatMap(Self.notice(in:)) { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "\(user.username) · Admin console", template: "admin-user", values, status: problem == nil ? .ok : status)
    }

    /// Applies the change the form on user `userID`'s page names (`change`).
    func changeUser(_ userID: String, form: FormParameters, by person: Operator) async throws -> Response {
        let operations = operations(person)
        let page = "/users/" + userID
        do {
            switch form["change"] {
            case "lock":
                try await operations.setLocked(userID: userID, true)
                return back(to: page, done: "locked")
            case "unlock":
                try await operations.setLocked(userID: userID, false)
                return back(to: page, done: "unlocked")
            case "end_session":
                try await operations.endBrowserSession(form["session"] ?? "", of: userID)
                return back(to: page, done: "session_ended")
            case "sign_out_everywhere":
                try await operations.signOutEverywhere(userID)
                return back(to: page, done: "signed_out")
            case "require_password_change":
                try await operations.requirePasswordChange(userID: userID)
                return back(to: page, done: "password_change_required")
            case "reset_factors":
                try await operations.resetSecondFactors(of: userID)
                return back(to: page, done: "factors_reset")
            case "profile":
                var change = Self.profileChange(form)
                // A box left ticked for the old address or number does not vouch for a new one.
                let current = try await operations.user(id: userID)
                if let email = change.email, email.lowercased() != current.email { change.emailVerified = nil }
                if change.phoneNumber.flatMap({ PhoneNumber($0)?.e164 }) != current.phoneNumber { change.phoneNumberVerified = nil }
                _ = try await operations.updateUser(userID, change, ifMatch: form["etag"] ?? "")
                return back(to: page, done: "profile_saved")
            case "remove_passkey":
                try await operations.removePasskey(form["passkey"] ?? "", of: userID)
                return back(to: page, done: "passkey_removed")
            case "unlink_identity":
                try await operations.unlinkIdentity(at: form["provider"] ?? "", of: userID)
                return back(to: page, done: "identity_unlinked")
            // Only one of this person's: the form names the device, the page the person.
            case "unblock_device":
                try await operations.unblockOwnDevice(form["device"] ?? "", of: userID)
                return back(to: page, done: "device_unblocked")
            case "remove_device":
                try await operations.deleteOwnDevice(form["device"] ?? "", of: userID)
                return back(to: page, done: "device_removed")
            case "revoke_consent":
                try await operations.revokeConsent(to: form["client"] ?? "", of: userID)
                return back(to: page, done: "consent_revoked")
            case "revoke_grant":
                _ = try await operations.revokeGrant(form["grant"] ?? "", of: userID)
                return back(to: page, done: "grant_revoked")
            default:
                return Self.unknownChange
            }
        } catch let problem as AdminProblem {
            return try await userPage(userID, person, problem: Self.explain(problem), status: Self.status(of: problem))
        }
    }

    /// The profile form as the admin API's change: every field the form holds, an empty one clearing it.
    static func profileChange(_ form: FormParameters) -> AdminUserChange {
        func field(_ name: String) -> String? { form.values[name].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } }
        var change = AdminUserChange()
        change.email = field("email")
        change.emailVerified = form["email_verified"] == "on"
        change.name = field("name")
        change.givenName = field("given_name")
        change.familyName = field("family_name")
        change.phoneNumber = field("phone")
        change.phoneNumberVerified = form["phone_verified"] == "on"
        return change
    }
}
