/// How a stored session is guarded on the device, chosen by the app per session (``UserSession/protect(with:)``, or
/// ``GatehouseConfiguration/sessionProtection`` for new ones).
///
/// Only a storage that can enforce it accepts a protection other than ``standard``: `KeychainTokenStorage` does on
/// Apple platforms (Keychain access control: the system asks for Face ID, Touch ID or the passcode when the tokens are
/// read, and the item never leaves the device); ``EncryptedFileTokenStorage`` and ``MemoryTokenStorage`` refuse with
/// ``TokenStorageError/protectionUnavailable(_:)`` rather than pretend.
public enum SessionProtection: String, Sendable, Codable, CaseIterable {
    /// Readable by the app whenever the device has been unlocked once since it started.
    case standard
    /// Readable after the person proves presence: biometrics, or the device passcode as a fallback.
    case userPresence
    /// Readable only after biometrics of the people enrolled now; enrolling another finger or face locks it for good.
    case biometry
    /// Readable only after the device passcode is entered.
    case devicePasscode
}
