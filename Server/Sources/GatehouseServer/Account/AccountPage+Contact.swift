import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// Changing the email address or phone number on the account page: the new one gets a code, which the person enters
/// on the page; then it is the account's (verified), the one it replaces hears of it, and the audit trail has both.
/// Asking needs a recent sign-in; the code is kept for this browser's session and that address only, and its guesses
/// count like every other code's (per account and per client address).
extension AccountPage {
    /// A way to reach the person that the page changes.
    enum Contact: String, Sendable {
        case email
        case phone

        var channel: MessageChannel { self == .email ? .email : .sms }
        var purpose: OneTimeCodeStore.Purpose { self == .email ? .verifyEmail : .verifyPhone }
        /// What the address (or number) it replaces is told.
        var notice: MessageTemplate { self == .email ? .emailChanged : .phoneChanged }
        /// What the page says once it changed.
        var done: String { self == .email ? "email_changed" : "phone_changed" }
    }

    /// A change waiting for its code, shown on the page.
    struct PendingContact: Sendable {
        var contact: Contact
        var address: String
    }

    /// Where the code is kept: this browser's session and the address, so the code confirms only that address here.
    static func codeKey(for pending: PendingContact, session current: SignedIn) -> String {
        "account-\(pending.contact.rawValue):\(current.handle):\(pending.address)"
    }

    /// Sends a code to the new address (or number) typed in the form, and shows the page asking for it.
    func requestContactChange(_ current: SignedIn, _ contact: Contact, form: FormParameters, request: Request) async throws -> Response {
        guard isRecent(current) else { return try await signIn(request, as: current.user) }
        let user = current.user
        let typed = (form[contact.rawValue] ?? "").trimmingCharacters(in: .whitespaces)
        let address: String
        switch contact {
        case .email:
            guard (try? AccountInputValidation.validateEmail(typed)) != nil else {
                return try await show(request, problem: "Enter a valid email address.", status: .badRequest)
            }
            address = typed.lowercased()
            guard address != user.email.lowercased() || !user.emailVerified else {
                return try await show(request, problem: "That is already your email address.", status: .badRequest)
            }
        case .phone:
            guard let number = PhoneNumber(typed) else { return try await show(request, problem: PhoneNumber.hint, status: .badRequest) }
            address = number.e164
        }
        let pending = PendingContact(contact: contact, address: address)
        let settings = loginFlow.settings
        switch try await loginFlow.oneTimeCodes.issue(
            flowID: Self.codeKey(for: pending, session: current), purpose: contact.purpose, channel: contact.channel, resend: false)
        {
        case .code(let code):
            if contact == .email, try await users.emailIsTaken(address, unproven: false) {
                // As at registration: the address's owner is told it has an account; no one else learns it.
                try await loginFlow.courier.send(.accountExists, to: address, on: .email, service: settings.serviceName, codeLifetime: 0)
            } else {
                try await loginFlow.courier.send(
                    .verificationCode, code: code, to: address, on: contact.channel, service: settings.serviceName,
                    codeLifetime: settings.oneTimeCodes.lifetime)
            }
        case .wait(let seconds):
            return try await show(
                request, problem: "A code was sent a moment ago. You can ask for another in \(seconds) seconds.", status: .tooManyRequests,
                pending: pending)
        case .exhausted:
            return try await show(request, problem: LoginMessages.tooManyCodes, status: .tooManyRequests)
        }
        return try await show(request, pending: pending)
    }

    /// Checks the code for the address in the form and, when it is right, makes the address the account's.
    func confirmContactChange(
        _ current: SignedIn, _ contact: Contact, form: FormParameters, request: Request, source: ClientAddress
    ) async throws -> Response {
        let user = current.user
        let pending = PendingContact(contact: contact, address: form[contact.rawValue] ?? "")
        let code = form["code"] ?? ""
        let checked = try await loginFlow.codeGuesses.check(contact.purpose, subject: "user:" + user.id, source: source) {
            user
        } verify: {
            try await loginFlow.oneTimeCodes.verify(flowID: Self.codeKey(for: pending, session: current), purpose: contact.purpose, code: code)
        }
        switch checked {
        case .blocked(let minutes):
            return try await show(request, problem: LoginMessages.guessesBlocked(minutes: minutes), status: .tooManyRequests)
        case .checked(.rejected(let remaining)) where remaining > 0:
            return try await show(request, problem: LoginMessages.invalidCode, status: .unauthorized, pending: pending)
        case .checked(.expired):
            return try await show(request, problem: LoginMessages.expiredCode, status: .gone)
        case .checked(.rejected):
            return try await show(request, problem: LoginMessages.tooManyCodes, status: .tooManyRequests)
        case .checked(.exhausted):
            // Used up, or never sent to this address from this browser.
            return try await show(request, problem: "That code cannot be used: ask for a new one.", status: .badRequest)
        case .checked(.accepted):
            break
        }
        let operations = operations("user:\(user.id)")
        let replaced: String?
        do {
            replaced =
                switch contact {
                case .email: try await operations.setProvenEmail(pending.address, of: user.id)
                case .phone: try await operations.setProvenPhone(pending.address, of: user.id)
                }
        } catch let problem as AdminProblem {
            return try await show(request, problem: problem.detail, status: problem.status)
        }
        let settings = loginFlow.settings
        if let replaced {
            // The address or number that stops getting messages hears of it, in case the change was not its owner's.
            try await loginFlow.courier.send(contact.notice, to: replaced, on: contact.channel, service: settings.serviceName, codeLifetime: 0)
        }
        if contact == .phone, let updated = try await users.find(id: user.id) { try await loginFlow.notify(updated, .phoneChanged) }
        return Self.back("done=" + contact.done)
    }
}
