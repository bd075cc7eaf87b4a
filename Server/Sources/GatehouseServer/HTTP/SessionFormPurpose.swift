/// The pages whose forms carry a token bound to the browser's session (``CookieSettings/sessionFormToken(_:in:)``):
/// each its own, so a token one page shows is not accepted by the other's forms.
enum SessionFormPurpose: String, Sendable {
    case account = "gatehouse account page"
    case console = "gatehouse admin console"
}
