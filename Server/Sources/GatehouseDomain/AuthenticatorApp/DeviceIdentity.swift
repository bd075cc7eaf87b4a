/// An authenticator app's identity for one account: registered by confirming the account's email, then
/// protected by a PIN that only the server can help check (see ``PINKeyring``).
public struct DeviceIdentity: Sendable, Equatable {
    /// Where a registration stands.
    public enum State: String, Sendable {
        /// Waiting for the email's code.
        case registrationStarted = "registration_started"
        /// The email is confirmed; the device may set its PIN.
        case verified
        /// The PIN is set: the identity can approve sign-ins.
        case registered
        /// Too many wrong PINs in a row; the app deletes it and registers again. Never stored: a registered identity
        /// whose count of wrong PINs reached the limit is blocked (``state(limit:)``), so a right PIN or an unblock lifts it.
        case blocked
    }

    public var id: String
    /// The account, once known: `nil` when the email given at registration belongs to no account.
    public var userID: String?
    public var email: String
    public var deviceName: String?
    public var state: State
    /// The identity's OPRF key, sealed under the server secret.
    package var sealedOPRFKey: String
    /// The ECDSA P-256 key that approves sign-ins (x9.63, base64url), set at activation.
    public var publicKey: String?
    public var pinFailures: Int
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    /// Where the identity's pushes go, once the app registered a token.
    public var push: PushTarget?

    /// The state with `limit` wrong PINs allowed in a row.
    public func state(limit: Int) -> State {
        state == .registered && pinFailures >= limit ? .blocked : state
    }
}
