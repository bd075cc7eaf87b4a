/// What went wrong in the device authenticator, and what the app (or the person) can do about it.
///
/// Descriptions never contain a PIN, a code or a secret.
public enum DeviceAuthenticatorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The scanned code is not a Gatehouse sign-in code.
    case notAGatehouseCode
    /// The service URL did not answer with a usable description (what was wrong).
    case invalidServiceDescription(String)
    /// The service does not accept this app (HTTP 406).
    case appNotAllowed
    /// The service needs a newer version of this app (HTTP 412).
    case updateRequired(minimumVersion: String?)
    /// The PIN does not have the service's form (this many digits).
    case malformedPIN(length: Int)
    /// The PIN was wrong; this many more wrong PINs are allowed before the identity is blocked.
    case wrongPIN(attemptsRemaining: Int)
    /// The identity is blocked after too many wrong PINs; delete it and register again.
    case identityBlocked
    /// The access code expired, was used already, or the session ended: refresh the page and scan again.
    case sessionExpired
    /// The email's code is wrong; this many more are allowed.
    case invalidCode(attemptsRemaining: Int)
    /// The email's code expired; ask for a new one.
    case codeExpired
    /// The registration expired or used up its codes; start it again.
    case registrationExpired
    /// The step does not fit where the registration stands (what to do).
    case wrongState(String)
    /// No identity with this id is stored on the device, or the service no longer knows it.
    case unknownIdentity
    /// The account is locked at the service.
    case accountLocked
    /// The server's evaluation did not prove it used this identity's key: a wrong or impersonated server.
    case invalidEvaluation
    /// The service could not be reached.
    case network(ErrorCause)
    /// The service answered with an error this SDK has no case for.
    case service(status: Int, error: String, description: String?)
    /// The identities could not be read from or written to the device's storage.
    case storage(ErrorCause)
    /// The code (or push) names a service this app does not trust (its host): the app lists the services it serves
    /// (``DeviceAuthenticator/trustedServices``).
    case untrustedService(String)
    /// The device already has an identity for this account at this service (its id): use it, or delete it first.
    case duplicateIdentity(String)
    /// The number picked is not the one on the sign-in page: the sign-in was denied, and the account's owner told.
    case wrongNumber
    /// The push is not one this app can read (no Gatehouse payload), or names an identity not on this device.
    case notAGatehousePush

    public var description: String {
        switch self {
        case .notAGatehouseCode: "This is not a Gatehouse sign-in code."
        case .invalidServiceDescription(let problem): "The service's description cannot be used: \(problem)."
        case .appNotAllowed: "This app cannot be used with this service."
        case .updateRequired(let minimum): "Update the app: this service needs version \(minimum ?? "newer") or later."
        case .malformedPIN(let length): "The PIN must be \(length) digits."
        case .wrongPIN(let remaining):
            remaining == 1
                ? "Wrong PIN. 1 attempt remains before this identity is blocked."
                : "Wrong PIN. \(remaining) attempts remain before this identity is blocked."
        case .identityBlocked: "This identity is blocked after too many wrong PINs. Delete it and register again."
        case .sessionExpired: "The session expired; refresh the page and scan again."
        case .invalidCode(let remaining): "The code is incorrect; \(remaining) more attempts allowed."
        case .codeExpired: "The code has expired; ask for a new one."
        case .registrationExpired: "The registration expired; start it again."
        case .wrongState(let advice): advice
        case .unknownIdentity: "This identity is not known here; register the device again."
        case .accountLocked: "The account is locked. Contact your administrator."
        case .invalidEvaluation: "The service's answer could not be verified; do not trust this service."
        case .network(let reason): "The service could not be reached (\(reason))."
        case .service(let status, let error, let description): "The service answered HTTP \(status) \(error)\(description.map { ": \($0)" } ?? "")."
        case .storage(let reason): "The identities could not be stored: \(reason)."
        case .untrustedService(let host): "This app does not sign in to \(host). Scan codes only from services you use it with."
        case .duplicateIdentity: "This device already has an identity for this account at this service. Use it, or delete it first."
        case .wrongNumber: "That is not the number on the sign-in page, so the sign-in was denied."
        case .notAGatehousePush: "This notification is not a sign-in request for an identity on this device."
        }
    }
}
