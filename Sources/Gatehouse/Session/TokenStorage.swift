/// Where the SDK keeps signed-in users' tokens between launches.
///
/// Storages hold opaque bytes per account; the SDK encodes them in a versioned format. Gatehouse ships
/// ``MemoryTokenStorage`` and ``EncryptedFileTokenStorage`` (and `KeychainTokenStorage` on Apple platforms); an app
/// may bring its own.
///
/// Per provider and client the SDK uses `issuer#clientID#accounts` for the list of signed-in accounts (no secrets:
/// subject, name, which one is the default), `issuer#clientID#user:<subject>` for each account's tokens (removed at its
/// sign-out), and `issuer#clientID#device-tokens` for the device tokens earlier sign-ins were given, which stays, like
/// a browser's device cookie, so that someone guessing at an account elsewhere does not keep its owner out here.
/// Releases before several accounts kept one session under `issuer#clientID`; it is moved on first use.
public protocol TokenStorage: Sendable {
    /// The bytes stored for `account`, or `nil` when there are none.
    func read(account: String) async throws -> [UInt8]?
    /// Stores `bytes` for `account`, replacing what was there.
    func write(_ bytes: [UInt8], account: String) async throws
    /// Stores `bytes` for `account` guarded by `protection` (``SessionProtection``), replacing what was there.
    ///
    /// The default stores ``SessionProtection/standard`` with ``write(_:account:)`` and refuses anything else with
    /// ``TokenStorageError/protectionUnavailable(_:)``: a storage implements this only when it can enforce it.
    func write(_ bytes: [UInt8], account: String, protection: SessionProtection) async throws
    /// Removes what is stored for `account`; nothing stored is not an error.
    func remove(account: String) async throws
}

extension TokenStorage {
    /// Stores with ``write(_:account:)`` when `protection` is ``SessionProtection/standard``; refuses anything else.
    public func write(_ bytes: [UInt8], account: String, protection: SessionProtection) async throws {
        guard protection == .standard else { throw TokenStorageError.protectionUnavailable(protection) }
        try await write(bytes, account: account)
    }
}

/// Tokens kept in memory only: the user signs in again after every launch.
public actor MemoryTokenStorage: TokenStorage {
    private var items: [String: [UInt8]] = [:]

    /// An empty storage.
    public init() {}

    /// The bytes stored for `account`.
    public func read(account: String) async throws -> [UInt8]? { items[account] }
    /// Stores `bytes` for `account`.
    public func write(_ bytes: [UInt8], account: String) async throws { items[account] = bytes }
    /// Forgets `account`.
    public func remove(account: String) async throws { items[account] = nil }
}
