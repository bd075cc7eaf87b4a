#if canImport(Security)
import Foundation
import Security

#if canImport(LocalAuthentication)
import LocalAuthentication
#endif

/// Tokens in the Keychain, the storage Apple platforms provide for secrets: encrypted by the system,
/// readable only by this app (or its access group), and by default only after the device was first
/// unlocked and never restored to another device.
///
/// A session can be guarded further (``SessionProtection``): its item then carries Keychain access control, and the
/// system asks for Face ID, Touch ID or the passcode before the SDK can read the tokens (at ``GatehouseClient/currentUser()``);
/// writing them after a refresh asks nothing.
public struct KeychainTokenStorage: TokenStorage {
    /// The Keychain service the items are stored under.
    public let service: String
    /// A shared access group, for apps and extensions that share a sign-in.
    public let accessGroup: String?
    /// What the system's prompt says when reading a protected session, e.g. "Unlock your account".
    public var authenticationPrompt: String?

    /// Items under `service`, shared with the apps of `accessGroup` when given.
    public init(service: String = "dev.gatehouse.tokens", accessGroup: String? = nil, authenticationPrompt: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
        self.authenticationPrompt = authenticationPrompt
    }

    /// The bytes stored for `account`; for a protected item, after the system asked the person to authenticate.
    public func read(account: String) async throws -> [UInt8]? {
        var query = baseQuery(account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        #if canImport(LocalAuthentication)
        if let authenticationPrompt {
            let context = LAContext()
            context.localizedReason = authenticationPrompt
            query[kSecUseAuthenticationContext as String] = context
        }
        #endif
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else { throw KeychainError(status: errSecDecode) }
            return Array(data)
        case errSecItemNotFound:
            return nil
        default:
            throw KeychainError(status: status)
        }
    }

    /// Stores `bytes` for `account`, readable after the first unlock, on this device only.
    public func write(_ bytes: [UInt8], account: String) async throws {
        let attributes: [String: Any] = [
            kSecValueData as String: Data(bytes),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(baseQuery(account: account) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let added = SecItemAdd(baseQuery(account: account).merging(attributes) { _, new in new } as CFDictionary, nil)
            guard added == errSecSuccess else { throw KeychainError(status: added) }
        } else if status != errSecSuccess {
            throw KeychainError(status: status)
        }
    }

    /// Stores `bytes` for `account` with access control for `protection`. The item is replaced rather than updated:
    /// an item's access control cannot be changed in place, and updating a protected one would ask the person to
    /// authenticate. Protected items need a device passcode and never leave the device.
    public func write(_ bytes: [UInt8], account: String, protection: SessionProtection) async throws {
        var item = baseQuery(account: account)
        item[kSecValueData as String] = Data(bytes)
        let flags: SecAccessControlCreateFlags
        switch protection {
        case .standard: flags = []
        case .userPresence: flags = .userPresence
        case .biometry: flags = .biometryCurrentSet
        case .devicePasscode: flags = .devicePasscode
        }
        if flags.isEmpty {
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        } else {
            var failure: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, &failure) else {
                throw failure.map { $0.takeRetainedValue() as Error } ?? KeychainError(status: errSecParam)
            }
            item[kSecAttrAccessControl as String] = access
        }
        try await remove(account: account)
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    /// Deletes the item of `account`, if there is one.
    public func remove(account: String) async throws {
        let status = SecItemDelete(baseQuery(account: account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }

    private func baseQuery(account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}

/// A Keychain call failed; `status` is the `OSStatus` the Security framework returned.
public struct KeychainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status code, e.g. `errSecUserCanceled` when the person dismissed the authentication prompt.
    public let status: OSStatus

    public var description: String {
        let message = SecCopyErrorMessageString(status, nil) as String? ?? "unknown error"
        return "The Keychain refused the operation (OSStatus \(status): \(message))."
    }
}
#endif
