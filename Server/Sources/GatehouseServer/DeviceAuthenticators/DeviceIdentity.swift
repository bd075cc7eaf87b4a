/// An authenticator app's identity for one account: registered by confirming the account's email, then
/// protected by a PIN that only the server can help check (see ``PINKeyring``).
struct DeviceIdentity: Sendable, Equatable {
    /// Where a registration stands.
    enum State: String, Sendable {
        /// Waiting for the email's code.
        case registrationStarted = "registration_started"
        /// The email is confirmed; the device may set its PIN.
        case verified
        /// The PIN is set: the identity can approve sign-ins.
        case registered
        /// Too many wrong PINs in a row; the app deletes it and registers again.
        case blocked
    }

    var id: String
    /// The account, once known: `nil` when the email given at registration belongs to no account.
    var userID: String?
    var email: String
    var deviceName: String?
    var state: State
    /// The identity's OPRF key, sealed under the server secret.
    var sealedOPRFKey: String
    /// The ECDSA P-256 key that approves sign-ins (x9.63, base64url), set at activation.
    var publicKey: String?
    var pinFailures: Int
    var createdAt: Int64
    var lastUsedAt: Int64?
}
