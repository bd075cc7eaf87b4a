import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseServer

/// Several accounts in one app against a live server: two people signed in on the same client, listed, switched,
/// each session working on its own, one removed (and revoked); a session stored by the release before several
/// accounts restoring after the upgrade; and the session protection seam, which the Keychain fills on Apple platforms.
@Suite("SDK accounts against a live server")
struct SDKAccountsTests {
    static func addEve(_ server: IdentityServer) async throws {
        let hash = try await server.hasher.hash(SDKLiveFlowTests.password)
        try await server.users.create(username: "eve", email: "eve@example.com", name: "Eve", passwordHash: hash)
    }

    @Test("two accounts: listed newest first, switched, refreshed apart; removing one revokes it and the other becomes the default")
    func twoAccounts() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let storage = MemoryTokenStorage()
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer, storage: storage)
            try await Self.addEve(server)
            let sam = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let eve = try await client.login(username: "eve", password: SDKLiveFlowTests.password)

            let accounts = try await client.accounts()
            #expect(accounts.map(\.username) == ["eve", "sam"])
            #expect(accounts.map(\.isDefault) == [true, false])
            #expect(accounts.map(\.subject) == [eve.subject, sam.subject] && accounts[0].email == "eve@example.com")
            #expect(try await client.currentUser()?.subject == eve.subject)

            // Switching makes Sam the one a later launch opens; both sessions work and refresh on their own.
            let samAgain = try await client.switchAccount(to: accounts[1])
            #expect(samAgain.subject == sam.subject)
            #expect(try await GatehouseClient(configuration: client.configuration).currentUser()?.subject == sam.subject)
            #expect(try await samAgain.refresh().accessToken != sam.currentTokens?.accessToken)
            #expect(try await eve.userinfo(cache: false).preferredUsername == "eve")
            let restoredEve = try #require(try await client.user(for: accounts[0]))
            #expect(try await restoredEve.userinfo(cache: false).preferredUsername == "eve")

            // Removing Sam (the default) revokes his tokens; Eve becomes the default.
            let samTokens = try #require(await samAgain.currentTokens)
            try await client.removeAccount(accounts[1])
            #expect(try await server.tokens.activeAccessToken(samTokens.accessToken) == nil)
            #expect(try await client.accounts().map(\.username) == ["eve"])
            #expect(try await client.currentUser()?.subject == eve.subject)
            await #expect(throws: GatehouseError.signedOut) { _ = try await client.switchAccount(to: accounts[1]) }
            // Signing out the last one leaves none.
            try await eve.logout()
            #expect(try await client.accounts().isEmpty)
            #expect(try await client.currentUser() == nil)
        }
    }

    @Test("a session stored by the release before several accounts (format 2) still works after the upgrade")
    func upgrade() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let storage = MemoryTokenStorage()
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer, storage: storage)
            // What that release did at sign-in: one record, format 2, under issuer#clientID.
            let signedIn = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let tokens = try #require(await signedIn.currentTokens)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            let record = try JSONSerialization.jsonObject(with: try encoder.encode(tokens))
            let written = try JSONSerialization.data(withJSONObject: ["format": 2, "tokens": record])
            for key in ["#accounts", "#user:\(signedIn.subject)"] { try await storage.remove(account: issuer.absoluteString + "#app" + key) }
            try await storage.write(Array(written), account: issuer.absoluteString + "#app")

            let upgraded = try #require(try await GatehouseClient(configuration: client.configuration).currentUser())
            #expect(upgraded.subject == signedIn.subject)
            #expect(try await upgraded.userinfo(cache: false).preferredUsername == "sam")
            #expect(try await upgraded.refresh().refreshToken != tokens.refreshToken)
            #expect(try await client.accounts().map(\.username) == ["sam"])
            #expect(try await storage.read(account: issuer.absoluteString + "#app") == nil)
        }
    }

    @Test("session protection: new sessions stored guarded, kept so across refreshes, changed per session; refused where it cannot hold")
    func protection() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let storage = RecordingProtectedStorage()
            _ = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            try await Self.addEve(server)
            var configuration = GatehouseConfiguration(issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb", tokenStorage: storage)
            configuration.sessionProtection = .biometry
            let client = GatehouseClient(configuration: configuration)
            let sam = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let key = issuer.absoluteString + "#app#user:" + sam.subject
            #expect(await storage.protection(of: key) == .biometry)
            #expect(await storage.protection(of: issuer.absoluteString + "#app#accounts") == .standard)  // no secrets there
            try await sam.refresh()
            #expect(await storage.protection(of: key) == .biometry)

            // Eve's session is the app's choice apart: plain; then Sam turns the guard off.
            var plain = configuration
            plain.sessionProtection = .standard
            let eve = try await GatehouseClient(configuration: plain).login(username: "eve", password: SDKLiveFlowTests.password)
            #expect(await storage.protection(of: issuer.absoluteString + "#app#user:" + eve.subject) == .standard)
            try await sam.protect(with: .devicePasscode)
            #expect(await storage.protection(of: key) == .devicePasscode)
            let accounts = try await client.accounts()
            #expect(accounts.map(\.protection) == [.standard, .devicePasscode])
            #expect(try await client.user(for: accounts[1])?.protection == .devicePasscode)
            // Signing Sam in again replaces his record without reading the protected one (no Face ID mid-sign-in).
            let reads = await storage.reads(of: key)
            _ = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await storage.reads(of: key) == reads)
            #expect(await storage.protection(of: key) == .biometry)

            // Files cannot be guarded by biometrics: the SDK says so and the session stays stored as it was.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-protect-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var files = plain
            files.tokenStorage = EncryptedFileTokenStorage(directory: folder)
            let filed = try await GatehouseClient(configuration: files).login(username: "sam", password: SDKLiveFlowTests.password)
            await #expect(throws: GatehouseError.storage(ErrorCause(TokenStorageError.protectionUnavailable(.biometry)))) {
                try await filed.protect(with: .biometry)
            }
            #expect(await filed.protection == .standard)
            #expect(try await GatehouseClient(configuration: files).currentUser()?.userinfo(cache: false).preferredUsername == "sam")
        }
    }
}

/// Records the protection each record was written with: the Linux stand-in for the Keychain's access control.
actor RecordingProtectedStorage: TokenStorage {
    private var items: [String: [UInt8]] = [:]
    private var protections: [String: SessionProtection] = [:]
    private var readCounts: [String: Int] = [:]

    func read(account: String) async throws -> [UInt8]? {
        readCounts[account, default: 0] += 1
        return items[account]
    }
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
    func reads(of account: String) -> Int { readCounts[account, default: 0] }
}
