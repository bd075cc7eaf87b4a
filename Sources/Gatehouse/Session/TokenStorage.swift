/// Where the SDK keeps a signed-in user's tokens between launches.
///
/// Storages hold opaque bytes per account; the SDK encodes them in a versioned format. Gatehouse ships
/// ``MemoryTokenStorage`` and ``EncryptedFileTokenStorage``; an app may bring its own.
///
/// The SDK uses two accounts per provider and client: `issuer#clientID` holds the signed-in user's tokens and is
/// removed at sign-out; `issuer#clientID#device-tokens` holds the device tokens earlier sign-ins were given and stays,
/// like a browser's device cookie, so that someone guessing at an account elsewhere does not keep its owner out here.
public protocol TokenStorage: Sendable {
    /// The bytes stored for `account`, or `nil` when there are none.
    func read(account: String) async throws -> [UInt8]?
    /// Stores `bytes` for `account`, replacing what was there.
    func write(_ bytes: [UInt8], account: String) async throws
    /// Removes what is stored for `account`; nothing stored is not an error.
    func remove(account: String) async throws
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
