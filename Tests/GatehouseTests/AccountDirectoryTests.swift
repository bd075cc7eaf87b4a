import Foundation
import Testing

@testable import Gatehouse

/// Several accounts per provider and client in the token storage: the index, the default, removal, one change at a
/// time, and the move of a single session stored by an earlier release.
@Suite("Account directory")
struct AccountDirectoryTests {
    private let issuer = TestIssuer()
    private let configuration = GatehouseConfiguration(
        issuer: URL(string: "https://id.example.com")!, clientID: "app", redirectURI: "com.example.app:/cb", tokenStorage: MemoryTokenStorage())
    private var directory: AccountDirectory { AccountDirectory(configuration: configuration) }

    private func account(_ subject: String, at seconds: TimeInterval) -> StoredAccount {
        StoredAccount(subject: subject, username: subject, name: nil, email: nil, signedInAt: Date(timeIntervalSince1970: seconds), protection: .standard)
    }

    @Test("a session stored by an earlier release (format 2, one per client) becomes the default account, with its key")
    func upgradeFromSingleSession() async throws {
        let idToken = try issuer.token(claims: ["sub": "user-7", "preferred_username": "ada", "name": "Ada", "email": "ada@example.com"])
        let written =
            #"{"format":2,"tokens":{"accessToken":"at","tokenType":"DPoP","expiresAt":1900000000,"refreshToken":"rt","idToken":"\#(idToken)","scope":"openid"},"dpop_key":"AQID"}"#
        try await configuration.tokenStorage.write(Array(written.utf8), account: "https://id.example.com#app")

        let accounts = try await directory.accounts()
        #expect(accounts.map(\.subject) == ["user-7"] && accounts[0].isDefault)
        #expect(accounts[0].username == "ada" && accounts[0].name == "Ada" && accounts[0].email == "ada@example.com")
        let moved = try #require(try await directory.session(of: "user-7"))
        #expect(moved.tokens.refreshToken == "rt" && moved.tokens.idToken == idToken && moved.dpopKey == Data([1, 2, 3]))
        // The old entry is gone and the index says which format it is.
        #expect(try await configuration.tokenStorage.read(account: "https://id.example.com#app") == nil)
        let index = try #require(try await configuration.tokenStorage.read(account: "https://id.example.com#app#accounts"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(index)) as? [String: Any])
        #expect(object["format"] as? Int == 3 && object["default"] as? String == "user-7")
        let record = try #require(try await configuration.tokenStorage.read(account: "https://id.example.com#app#user:user-7"))
        #expect((try JSONSerialization.jsonObject(with: Data(record)) as? [String: Any])?["format"] as? Int == 3)
        // Reading again changes nothing.
        #expect(try await directory.accounts() == accounts)
    }

    @Test("format 1, as the first release wrote it, moves the same way")
    func upgradeFromFirstRelease() async throws {
        let idToken = try issuer.token(claims: ["sub": "user-1"])
        let written =
            #"{"format":1,"tokens":{"accessToken":"at","tokenType":"Bearer","expiresAt":1900000000,"refreshToken":"rt","idToken":"\#(idToken)","scope":"openid"}}"#
        try await configuration.tokenStorage.write(Array(written.utf8), account: "https://id.example.com#app")
        #expect(try await directory.accounts().map(\.subject) == ["user-1"])
        #expect(try await directory.session(of: "user-1")?.tokens.accessToken == "at")
    }

    @Test("each sign-in becomes the default; switching and removing move the default; the newest first")
    func defaultAccount() async throws {
        try await directory.add(account("ann", at: 100))
        try await directory.add(account("bob", at: 200))
        try await directory.add(account("cat", at: 150))
        #expect(try await directory.accounts().map(\.subject) == ["bob", "cat", "ann"])
        #expect(try await directory.defaultAccount()?.subject == "cat")
        #expect(try await directory.makeDefault("ann"))
        #expect(try await !directory.makeDefault("nobody"))
        #expect(try await directory.defaultAccount()?.subject == "ann")
        // Signing in again refreshes the entry rather than adding a second one.
        try await directory.add(account("bob", at: 300))
        #expect(try await directory.accounts().map(\.subject) == ["bob", "cat", "ann"])
        #expect(try await directory.defaultAccount()?.subject == "bob")
        // Removing the default makes the most recent one left the default.
        try await directory.remove("bob")
        #expect(try await directory.defaultAccount()?.subject == "cat")
        try await directory.remove("ann")
        try await directory.remove("cat")
        #expect(try await directory.accounts().isEmpty)
        #expect(try await directory.defaultAccount() == nil)
    }

    @Test("twenty sign-ins finishing together all land in the index")
    func concurrentAdds() async throws {
        let directory = self.directory
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<20 {
                group.addTask {
                    try await directory.add(
                        StoredAccount(
                            subject: "user-\(number)", username: nil, name: nil, email: nil,
                            signedInAt: Date(timeIntervalSince1970: Double(number)), protection: .standard))
                }
            }
            try await group.waitForAll()
        }
        #expect(try await directory.accounts().count == 20)
    }

    @Test("an index written by a newer SDK reads as no accounts, not as an error")
    func newerIndex() async throws {
        try await configuration.tokenStorage.write(Array(#"{"format":9,"profiles":{}}"#.utf8), account: "https://id.example.com#app#accounts")
        #expect(try await directory.accounts().isEmpty)
    }

    @Test("a session's record is written with its protection through the storage's seam")
    func protectionSeam() async throws {
        let storage = ProtectingStorage()
        var configuration = self.configuration
        configuration.tokenStorage = storage
        let directory = AccountDirectory(configuration: configuration)
        let tokens = TokenSet(accessToken: "at", expiresAt: Date(timeIntervalSince1970: 1_900_000_000))
        try await directory.storeSession(.init(tokens: tokens, protection: .biometry), of: "ann")
        #expect(await storage.protection(of: "https://id.example.com#app#user:ann") == .biometry)
        #expect(try await directory.session(of: "ann")?.protection == .biometry)
        // Where the storage cannot enforce it, the SDK says so instead of storing the tokens unguarded.
        let plain = AccountDirectory(configuration: self.configuration)
        await #expect(throws: GatehouseError.storage(ErrorCause(TokenStorageError.protectionUnavailable(.biometry)))) {
            try await plain.storeSession(.init(tokens: tokens, protection: .biometry), of: "ann")
        }
    }
}

/// A storage that enforces nothing but records the protection each record was written with: the stand-in, on Linux,
/// for the Keychain's access control.
actor ProtectingStorage: TokenStorage {
    private var items: [String: [UInt8]] = [:]
    private var protections: [String: SessionProtection] = [:]

    func read(account: String) async throws -> [UInt8]? { items[account] }
    func write(_ bytes: [UInt8], account: String) async throws { try await write(bytes, account: account, protection: .standard) }
    func write(_ bytes: [UInt8], account: String, protection: SessionProtection) async throws {
        items[account] = bytes
        protections[account] = protection
    }
    func remove(account: String) async throws {
        items[account] = nil
        protections[account] = nil
    }
    func protection(of account: String) -> SessionProtection? { protections[account] }
}
