extension GatehouseClient {
    /// The accounts signed in on this device for this provider and client, the most recently signed in first; the
    /// one ``currentUser()`` opens has ``StoredAccount/isDefault`` set. Every sign-in adds its user (or refreshes
    /// them) and makes them the default; signing out removes them.
    public func accounts() async throws(GatehouseError) -> [StoredAccount] {
        try await AccountDirectory(configuration: configuration).accounts()
    }

    /// The session of `account`, or `nil` when its tokens are no longer stored.
    public func user(for account: StoredAccount) async throws(GatehouseError) -> UserSession? {
        try await UserSession.restore(account, configuration: configuration, metadata: try await metadata())
    }

    /// Makes `account` the default — what ``currentUser()`` opens from now on — and returns its session.
    ///
    /// - Throws: ``GatehouseError/signedOut`` when the account is no longer stored on this device.
    public func switchAccount(to account: StoredAccount) async throws(GatehouseError) -> UserSession {
        guard try await AccountDirectory(configuration: configuration).makeDefault(account.subject), let user = try await user(for: account) else {
            throw .signedOut
        }
        return user
    }

    /// Signs `account` out: its tokens are revoked at the provider and removed from this device (as
    /// ``UserSession/logout()`` does); the most recently signed-in account left becomes the default.
    public func removeAccount(_ account: StoredAccount) async throws(GatehouseError) {
        if let user = try await user(for: account) {
            try await user.logout()
        } else {
            try await AccountDirectory(configuration: configuration).remove(account.subject)
        }
    }
}
