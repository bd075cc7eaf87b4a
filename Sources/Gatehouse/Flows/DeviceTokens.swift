import Foundation

/// The device tokens earlier sign-ins on this device were given: the app's counterpart of a browser's device
/// cookie. Kept in the app's token storage beside the tokens, also after signing out, and presented with every
/// flow submission, so someone guessing at an account elsewhere does not keep its owner out on this device.
struct DeviceTokens: Sendable {
    let configuration: GatehouseConfiguration

    /// The server reads at most this many; the newest are kept.
    static let maximum = 8

    private var account: String { configuration.storageAccount + "#device-tokens" }

    /// The tokens kept so far, newest first; none when the storage cannot be read, since a sign-in works without them.
    func read() async -> [String] {
        do {
            guard let bytes = try await configuration.tokenStorage.read(account: account) else { return [] }
            return try JSONDecoder().decode([String].self, from: Data(bytes))
        } catch {
            configuration.logger.notice("Device tokens could not be read; signing in without them", metadata: ["reason": "\(error)"])
            return []
        }
    }

    /// Keeps `token` as the newest, dropping the oldest beyond ``maximum``.
    func remember(_ token: String) async {
        let kept = [token] + (await read()).filter { $0 != token }
        do {
            try await configuration.tokenStorage.write(Array(try JSONEncoder().encode(Array(kept.prefix(Self.maximum)))), account: account)
        } catch {
            configuration.logger.notice("A device token could not be stored", metadata: ["reason": "\(error)"])
        }
    }
}
