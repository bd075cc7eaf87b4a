import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes

/// Changing a person's email address or phone number with a code sent to the new one, for the account page and the
/// account API: the code is kept under a key the caller chooses (the page: its browser session; the API: the
/// account) together with the address, so it confirms only that address there; its guesses count like every other
/// code's (per account and per client address). Once confirmed, the address is the account's (verified), the one it
/// replaces hears of it, and the audit trail has both.
struct ContactChange: Sendable {
    /// Issues, sends and checks the codes, and tells the owner.
    let loginFlow: LoginFlow
    let users: UserStore

    /// A way to reach the person.
    enum Contact: String, Sendable {
        case email
        case phone

        var channel: MessageChannel { self == .email ? .email : .sms }
        var purpose: OneTimeCodeStore.Purpose { self == .email ? .verifyEmail : .verifyPhone }
        /// What the address (or number) it replaces is told.
        var notice: MessageTemplate { self == .email ? .emailChanged : .phoneChanged }
    }

    /// A new address waiting for its code.
    struct Pending: Sendable {
        var contact: Contact
        var address: String
    }

    /// Why a change was not made: words for the person, an HTTP status, and whether the code may still be entered.
    struct Refusal: Error, Sendable {
        var message: MessageReference
        var status: HTTPResponse.Status
        var codeStillPending = false
    }

    /// The new address `typed` for `contact`, normalized (lower-case email, E.164 number), unless it cannot be one.
    func pending(_ contact: Contact, typed: String, of user: User) throws(Refusal) -> Pending {
        let text = typed.trimmingCharacters(in: .whitespaces)
        switch contact {
        case .email:
            guard (try? AccountInputValidation.validateEmail(text)) != nil else {
                throw Refusal(message: MessageReference("flow.field.email.invalid"), status: .badRequest)
            }
            guard text.lowercased() != user.email.lowercased() || !user.emailVerified else {
                throw Refusal(message: MessageReference("account.problem.same_email"), status: .badRequest)
            }
            // A username that is an email address stays the account's address: refused before a code is sent.
            guard !user.usernameKeepsEmail(from: text) else {
                throw Refusal(message: MessageReference("account.problem.username_is_email", ["username": user.username]), status: .badRequest)
            }
            return Pending(contact: .email, address: text.lowercased())
        case .phone:
            guard let number = PhoneNumber(text) else { throw Refusal(message: MessageReference("flow.field.phone.hint"), status: .badRequest) }
            return Pending(contact: .phone, address: number.e164)
        }
    }

    /// Sends a code to `pending`'s address, kept under `key`. An email address another account proved gets a notice
    /// instead (as at registration: only its owner learns that it has an account); the answer is the same.
    func send(_ pending: Pending, key: String) async throws {
        let settings = loginFlow.settings
        switch try await loginFlow.oneTimeCodes.issue(
            flowID: Self.codeKey(pending, key), purpose: pending.contact.purpose, channel: pending.contact.channel, resend: false)
        {
        case .code(let code):
            if pending.contact == .email, try await users.emailIsTaken(pending.address, unproven: false) {
                try await loginFlow.courier.send(.accountExists, to: pending.address, on: .email, service: settings.serviceName, codeLifetime: 0)
            } else {
                try await loginFlow.courier.send(
                    .verificationCode, code: code, to: pending.address, on: pending.contact.channel, service: settings.serviceName,
                    codeLifetime: settings.oneTimeCodes.lifetime)
            }
        case .wait(let seconds):
            throw Refusal(
                message: MessageReference("flow.code.resend_too_soon", ["seconds": "\(seconds)"]), status: .tooManyRequests, codeStillPending: true)
        case .exhausted:
            throw Refusal(message: MessageReference(LoginMessages.tooManyCodes), status: .tooManyRequests)
        }
    }

    /// Checks `code` for `pending` under `key` and, when it is right, makes the address `user`'s with `operations`.
    func confirm(
        _ pending: Pending, code: String, key: String, user: User, source: ClientAddress, operations: DatabaseAdminOperations
    ) async throws {
        let checked = try await loginFlow.codeGuesses.check(pending.contact.purpose, subject: "user:" + user.id, source: source) {
            user
        } verify: {
            try await loginFlow.oneTimeCodes.verify(flowID: Self.codeKey(pending, key), purpose: pending.contact.purpose, code: code)
        }
        switch checked {
        case .blocked(let minutes):
            throw Refusal(message: MessageReference(LoginMessages.guessesBlocked, ["minutes": "\(minutes)"]), status: .tooManyRequests)
        case .checked(.rejected(let remaining)) where remaining > 0:
            throw Refusal(message: MessageReference(LoginMessages.invalidCode), status: .unauthorized, codeStillPending: true)
        case .checked(.expired):
            throw Refusal(message: MessageReference(LoginMessages.expiredCode), status: .gone)
        case .checked(.rejected):
            throw Refusal(message: MessageReference(LoginMessages.tooManyCodes), status: .tooManyRequests)
        case .checked(.exhausted):
            // Used up, or never sent to this address here.
            throw Refusal(message: MessageReference("account.problem.code_unusable"), status: .badRequest)
        case .checked(.accepted):
            break
        }
        let replaced: String?
        do {
            replaced =
                switch pending.contact {
                case .email: try await operations.setProvenEmail(pending.address, of: user.id)
                case .phone: try await operations.setProvenPhone(pending.address, of: user.id)
                }
        } catch let problem as AdminProblem {
            throw Refusal(message: problem.messageForOwner, status: problem.status)
        }
        if let replaced {
            // The address or number that stops getting messages hears of it, in case the change was not its owner's.
            try await loginFlow.courier.send(
                pending.contact.notice, to: replaced, on: pending.contact.channel, service: loginFlow.settings.serviceName, codeLifetime: 0,
                language: loginFlow.courier.language(of: user))
        }
        if pending.contact == .phone, let updated = try await users.find(id: user.id) { try await loginFlow.notify(updated, .phoneChanged) }
    }

    /// Where a code is kept: the caller's key and the address.
    private static func codeKey(_ pending: Pending, _ key: String) -> String {
        "contact-\(pending.contact.rawValue):\(key):\(pending.address)"
    }
}
