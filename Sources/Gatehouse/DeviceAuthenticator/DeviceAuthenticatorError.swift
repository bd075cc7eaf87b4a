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
    /// The step does not fit where the registration stands (what to do, in English; ``localizedDescription(in:)``
    /// translates the SDK's own advice, and shows a service's as it came).
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

    /// What went wrong, in English: for logs.
    public var description: String { localizedDescription(in: ["en"]) }

    /// What went wrong, in the first of `languages` the SDK speaks, else English: for the person holding the device.
    public func localizedDescription(in languages: [String]) -> String {
        func say(_ key: String, _ arguments: String...) -> String { StringCatalog.text(key, arguments, languages: languages) }
        return switch self {
        case .notAGatehouseCode: say("device.not_a_code")
        case .invalidServiceDescription(let problem): say("device.invalid_service", problem)
        case .appNotAllowed: say("device.app_not_allowed")
        case .updateRequired(let minimum): say("device.update_required", minimum ?? say("device.newer"))
        case .malformedPIN(let length): say("device.malformed_pin", "\(length)")
        case .wrongPIN(let remaining): remaining == 1 ? say("device.wrong_pin.one") : say("device.wrong_pin.other", "\(remaining)")
        case .identityBlocked: say("device.identity_blocked")
        case .sessionExpired: say("device.session_expired")
        case .invalidCode(let remaining): say("device.invalid_code", "\(remaining)")
        case .codeExpired: say("device.code_expired")
        case .registrationExpired: say("device.registration_expired")
        case .wrongState(let advice): StringCatalog.translation(of: advice, under: "device.state.", languages: languages) ?? advice
        case .unknownIdentity: say("device.unknown_identity")
        case .accountLocked: say("device.account_locked")
        case .invalidEvaluation: say("device.invalid_evaluation")
        case .network(let reason): say("device.network", reason.summary)
        case .service(let status, let error, let description): say("device.service", "\(status)", error, description.map { ": \($0)" } ?? "")
        case .storage(let reason): say("device.storage", reason.summary)
        case .untrustedService(let host): say("device.untrusted_service", host)
        case .duplicateIdentity: say("device.duplicate_identity")
        case .wrongNumber: say("device.wrong_number")
        case .notAGatehousePush: say("device.not_a_push")
        }
    }
}
