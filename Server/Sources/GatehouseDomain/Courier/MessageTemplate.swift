import Foundation
import GatehouseFoundation

/// The texts Gatehouse sends. Short enough for one SMS; the code comes first so phones can offer to fill it in.
package enum MessageTemplate: String, Sendable, CaseIterable {
    case signInCode = "sign_in_code"
    /// Signs in without a password: a code, and a link that submits it in the browser that asked.
    case emailSignIn = "email_sign_in"
    case verificationCode = "verification_code"
    case recoveryCode = "recovery_code"
    case unlockCode = "unlock_code"
    /// Sent instead of a verification code when someone tries to register with an address that has an account.
    case accountExists = "account_exists"
    /// Told after the account's authenticator app was replaced, so its owner notices a change they did not make.
    case authenticatorChanged = "authenticator_changed"
    /// Told after new recovery codes replaced the old ones.
    case recoveryCodesChanged = "recovery_codes_changed"
    /// Told, at the old number and the email address, after another phone number took over the account's codes.
    case phoneChanged = "phone_changed"
    /// Told, at the old address, after another email address became the account's.
    case emailChanged = "email_changed"
    /// Told after a passkey was added to the account.
    case passkeyAdded = "passkey_added"
    /// Told after the password was changed on the account page.
    case passwordChanged = "password_changed"
    /// Told after a second factor was removed on the account page.
    case factorRemoved = "factor_removed"
    /// Told after a passkey, an authenticator app or another provider's sign-in was removed from the account.
    case signInMethodRemoved = "sign_in_method_removed"
    /// Told after the account was deleted on the account page.
    case accountDeleted = "account_deleted"
    /// Confirms a new authenticator app's device identity with a code typed into the app.
    case deviceCode = "device_code"
    /// Confirms a new authenticator app's device identity with a link (passed as the code).
    case deviceLink = "device_link"
    /// Told when wrong codes or passwords blocked a journey of the account for a while (the code is the journey's name).
    case guessesBlocked = "guesses_blocked"
    /// Told when a sign-in pushed to the authenticator app was denied there: a wrong number, or "this wasn't me".
    case pushDenied = "push_denied"

    /// Warnings to the account's owner about something that happened to it. They are counted against their own
    /// hourly budget, apart from codes, which anyone who knows an address can have sent to it.
    package static let securityNotices: [MessageTemplate] = [
        .authenticatorChanged, .recoveryCodesChanged, .phoneChanged, .emailChanged, .passkeyAdded, .guessesBlocked, .passwordChanged, .factorRemoved,
        .accountDeleted, .signInMethodRemoved, .pushDenied,
    ]

    package var isSecurityNotice: Bool { Self.securityNotices.contains(self) }

    /// The subject and body for `code` on `channel`, in `wording`'s language: for a call, the text a voice gateway
    /// reads out, with the code spoken digit by digit, twice.
    package func render(
        code: String, link: String = "", minutes: Int64, service: String, on channel: MessageChannel, in wording: Wording
    ) -> (subject: String, body: String) {
        let text = render(code: code, link: link, minutes: minutes, service: service, in: wording)
        guard channel == .voice, !code.isEmpty else { return text }
        let spoken = code.filter { !$0.isWhitespace }.map(String.init).joined(separator: wording("list.separator").text)
        return (text.subject, text.body.replacingOccurrences(of: code, with: spoken) + " " + wording("message.voice.again", ["code": spoken]).text)
    }

    /// The subject and body for `code` (empty for the notices: ``accountExists`` and the changes), valid for `minutes`,
    /// from `service`, with `link` where the message has one: the catalog's `message.<raw value>.subject` and `.body`.
    package func render(code: String, link: String = "", minutes: Int64, service: String, in wording: Wording) -> (subject: String, body: String) {
        let arguments = ["code": code, "link": link, "minutes": "\(minutes)", "service": service]
        return (wording(subjectKey, arguments).text, wording(bodyKey, arguments).text)
    }

    /// The key of the message's subject in the catalogs.
    package var subjectKey: String { "message.\(rawValue).subject" }
    /// The key of the message's body in the catalogs.
    package var bodyKey: String { "message.\(rawValue).body" }
}
