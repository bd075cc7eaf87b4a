import Foundation

/// The accounts signed in on this device for one provider and client, kept in the token storage: an index (who they
/// are, which is the default) and one tokens record per account. The single session releases before format 3 kept
/// is moved into this layout the first time the directory is read.
struct AccountDirectory: Sendable {
    let configuration: GatehouseConfiguration
    private var storage: any TokenStorage { configuration.tokenStorage }

    /// Where the index is kept.
    var indexKey: String { configuration.storageAccount + "#accounts" }
    /// Where the session of releases before several accounts was kept.
    var legacyKey: String { configuration.storageAccount }
    /// Where the tokens of `subject` are kept.
    func sessionKey(for subject: String) -> String { configuration.storageAccount + "#user:" + subject }

    /// The stored index: no secrets, so it is never protected beyond the storage's standard.
    struct Index: Codable, Equatable {
        var format = StoredTokenFormat.current
        var defaultSubject: String?
        var accounts: [StoredAccount] = []

        enum CodingKeys: String, CodingKey {
            case format, accounts
            case defaultSubject = "default"
        }
    }

    /// The accounts, the most recently signed in first, the default one marked.
    func accounts() async throws(GatehouseError) -> [StoredAccount] {
        let index = try await serialized { () async throws(GatehouseError) -> Index in try await load() }
        return index.accounts.sorted { $0.signedInAt > $1.signedInAt }.marking(default: index.defaultSubject)
    }

    /// The account ``GatehouseClient/currentUser()`` opens, if any.
    func defaultAccount() async throws(GatehouseError) -> StoredAccount? {
        try await accounts().first { $0.isDefault }
    }

    /// Records a sign-in of `account`: added, or refreshed when it signed in before, and made the default.
    func add(_ account: StoredAccount) async throws(GatehouseError) {
        try await update { index in
            index.accounts.removeAll { $0.subject == account.subject }
            index.accounts.append(account)
            index.defaultSubject = account.subject
        }
    }

    /// Makes `subject` the default; `false` when no such account is stored.
    func makeDefault(_ subject: String) async throws(GatehouseError) -> Bool {
        try await update { index in
            guard index.accounts.contains(where: { $0.subject == subject }) else { return false }
            index.defaultSubject = subject
            return true
        }
    }

    /// Notes the protection the account's tokens are stored with now.
    func setProtection(_ protection: SessionProtection, of subject: String) async throws(GatehouseError) {
        try await update { index in
            for position in index.accounts.indices where index.accounts[position].subject == subject {
                index.accounts[position].protection = protection
            }
        }
    }

    /// Forgets `subject` and its tokens; when it was the default, the most recently signed-in account left becomes it.
    func remove(_ subject: String) async throws(GatehouseError) {
        try await storageCall { try await storage.remove(account: sessionKey(for: subject)) }
        try await update { index in
            index.accounts.removeAll { $0.subject == subject }
            if index.defaultSubject == subject { index.defaultSubject = index.accounts.max { $0.signedInAt < $1.signedInAt }?.subject }
        }
    }

    /// The stored tokens of `subject`, or `nil` when there are none (or a newer SDK wrote them).
    func session(of subject: String) async throws(GatehouseError) -> StoredTokenFormat.Stored? {
        try await storageCall {
            try await storage.read(account: sessionKey(for: subject)).flatMap { try StoredTokenFormat.decode(Data($0)) }
        }
    }

    /// Stores the tokens of `subject` with their key, guarded by the protection given.
    func storeSession(_ stored: StoredTokenFormat.Stored, of subject: String) async throws(GatehouseError) {
        try await storageCall {
            let encoded = try StoredTokenFormat.encode(stored.tokens, dpopKey: stored.dpopKey, protection: stored.protection)
            try await storage.write(Array(encoded), account: sessionKey(for: subject), protection: stored.protection)
        }
    }

    // MARK: - The index, read and written one change at a time

    @discardableResult
    private func update<T: Sendable>(_ change: @escaping @Sendable (inout Index) -> T) async throws(GatehouseError) -> T {
        try await serialized { () async throws(GatehouseError) -> T in
            var index = try await load()
            let result = change(&index)
            try await storageCall { try await storage.write(Array(try JSONEncoder.accounts.encode(index)), account: indexKey) }
            return result
        }
    }

    /// The index as stored, after moving an older release's session into it. An index written by a newer SDK reads
    /// as empty.
    private func load() async throws(GatehouseError) -> Index {
        if let bytes = try await storageCall({ try await storage.read(account: indexKey) }) {
            let index: Index
            do {
                index = try JSONDecoder.accounts.decode(Index.self, from: Data(bytes))
            } catch {
                // A newer SDK's index may not decode at all; its format number says so.
                struct FormatOnly: Decodable { var format: Int }
                if let format = try? JSONDecoder().decode(FormatOnly.self, from: Data(bytes)).format, format > StoredTokenFormat.current {
                    return Index()
                }
                throw .storage(ErrorCause(error))
            }
            return index.format > StoredTokenFormat.current ? Index() : index
        }
        return try await migrateSingleSession() ?? Index()
    }

    /// Moves the session of a release before several accounts (format 1 or 2 under `issuer#clientID`) into the
    /// directory as its only, default account: its record first, then the index, then the old entry goes.
    private func migrateSingleSession() async throws(GatehouseError) -> Index? {
        let stored = try await storageCall {
            try await storage.read(account: legacyKey).flatMap { try StoredTokenFormat.decode(Data($0)) }
        }
        guard let stored else { return nil }
        let claims = stored.tokens.idToken.flatMap(IDTokenClaims.previouslyValidated)
        let subject = claims?.subject ?? "unknown"
        try await storeSession(stored, of: subject)
        let account = StoredAccount(
            subject: subject, username: claims?.preferredUsername, name: claims?.name, email: claims?.email,
            signedInAt: claims?.authTime ?? claims?.issuedAt ?? Date(), protection: stored.protection)
        let index = Index(defaultSubject: subject, accounts: [account])
        try await storageCall { try await storage.write(Array(try JSONEncoder.accounts.encode(index)), account: indexKey) }
        try await storageCall { try await storage.remove(account: legacyKey) }
        configuration.logger.info("Moved the stored session into the account list", metadata: ["subject": "\(subject)"])
        return index
    }

    private func serialized<T: Sendable>(_ body: @escaping @Sendable () async throws(GatehouseError) -> T) async throws(GatehouseError) -> T {
        try await AccountIndexQueue.shared.run(body)
    }

    private func storageCall<T>(_ body: () async throws -> T) async throws(GatehouseError) -> T {
        do {
            return try await body()
        } catch let error as GatehouseError {
            throw error
        } catch {
            throw .storage(ErrorCause(error))
        }
    }
}

/// Runs the directory's read-modify-write steps one at a time in this process, so two sign-ins finishing together
/// cannot drop each other's account from the index.
actor AccountIndexQueue {
    static let shared = AccountIndexQueue()
    private var last: Task<Void, Never>?

    func run<T: Sendable>(_ body: @escaping @Sendable () async throws(GatehouseError) -> T) async throws(GatehouseError) -> T {
        let previous = last
        let task = Task { () async -> Result<T, GatehouseError> in
            await previous?.value
            do throws(GatehouseError) { return .success(try await body()) } catch { return .failure(error) }
        }
        last = Task { _ = await task.value }
        return try await task.value.get()
    }
}

extension [StoredAccount] {
    fileprivate func marking(default subject: String?) -> [StoredAccount] {
        map { account in
            var marked = account
            marked.isDefault = account.subject == subject
            return marked
        }
    }
}

extension JSONEncoder {
    fileprivate static var accounts: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }
}

extension JSONDecoder {
    fileprivate static var accounts: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
