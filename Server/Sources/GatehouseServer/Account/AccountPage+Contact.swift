import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import Hummingbird

/// Changing the email address or phone number on the account page (``ContactChange``): the new one gets a code,
/// which the person enters on the page. Asking needs a recent sign-in; the code is kept for this browser's session.
extension AccountPage {
    /// Sends a code to the new address (or number) typed in the form, and shows the page asking for it.
    func requestContactChange(_ current: SignedIn, _ contact: ContactChange.Contact, form: FormParameters, request: Request) async throws -> Response {
        guard isRecent(current) else { return try await signIn(request, as: current.user) }
        let pending: ContactChange.Pending
        do {
            pending = try contactChange.pending(contact, typed: form[contact.rawValue] ?? "", of: current.user)
        } catch {
            return try await show(request, refusal: error, pending: nil)
        }
        do {
            try await contactChange.send(pending, key: current.handle)
        } catch let refusal as ContactChange.Refusal {
            return try await show(request, refusal: refusal, pending: pending)
        }
        return try await show(request, pending: pending)
    }

    /// Checks the code for the address in the form and, when it is right, makes the address the account's.
    func confirmContactChange(
        _ current: SignedIn, _ contact: ContactChange.Contact, form: FormParameters, request: Request, source: ClientAddress
    ) async throws -> Response {
        let pending = ContactChange.Pending(contact: contact, address: form[contact.rawValue] ?? "")
        do {
            try await contactChange.confirm(
                pending, code: form["code"] ?? "", key: current.handle, user: current.user, source: source,
                operations: operations("user:\(current.user.id)"))
        } catch let refusal as ContactChange.Refusal {
            return try await show(request, refusal: refusal, pending: pending)
        }
        return Self.back(contact == .email ? "done=email_changed" : "done=phone_changed")
    }

    /// The page saying why a contact change was refused, still asking for the code when it may be entered.
    private func show(_ request: Request, refusal: ContactChange.Refusal, pending: ContactChange.Pending?) async throws -> Response {
        try await show(request, problem: refusal.message, status: refusal.status, pending: refusal.codeStillPending ? pending : nil)
    }
}
