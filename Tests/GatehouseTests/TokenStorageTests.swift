import Foundation
import Testing

@testable import Gatehouse

@Suite("Token storage")
struct TokenStorageTests {
    private let tokens = TokenSet(accessToken: "at", expiresAt: Date(timeIntervalSince1970: 1_900_000_000), refreshToken: "rt", idToken: "id", scope: "openid")

    private func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-sdk-\(UUID().uuidString)").appendingPathComponent("tokens")
    }

    @Test("the stored format round-trips and names its version")
    func format() throws {
        let data = try StoredTokenFormat.encode(tokens)
        #expect(try StoredTokenFormat.decode(data) == .init(tokens: tokens, dpopKey: nil))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? Int == 3 && object["protection"] as? String == "standard")
        let guarded = try StoredTokenFormat.encode(tokens, protection: .biometry)
        #expect(try StoredTokenFormat.decode(guarded)?.protection == .biometry)
        let key = try SoftwareDPoPKey()
        let bound = try StoredTokenFormat.encode(tokens, dpopKey: key.storedRepresentation)
        let restored = try #require(try StoredTokenFormat.decode(bound))
        #expect(restored.tokens == tokens)
        #expect(try SoftwareDPoPKeys().restoreKey(from: try #require(restored.dpopKey)).publicKey == key.publicKey)
    }

    @Test("format 1 as written by the first release stays readable")
    func firstReleaseFormat() throws {
        let stored =
            #"{"format":1,"tokens":{"accessToken":"at","tokenType":"Bearer","expiresAt":1900000000,"refreshToken":"rt","idToken":"id","scope":"openid"}}"#
        #expect(try StoredTokenFormat.decode(Data(stored.utf8)) == .init(tokens: tokens, dpopKey: nil))
    }

    @Test("format 2 (tokens with their DPoP key) as written before several accounts stays readable")
    func secondReleaseFormat() throws {
        let stored =
            #"{"format":2,"tokens":{"accessToken":"at","tokenType":"DPoP","expiresAt":1900000000,"refreshToken":"rt","idToken":"id","scope":"openid"},"dpop_key":"AQID"}"#
        let decoded = try #require(try StoredTokenFormat.decode(Data(stored.utf8)))
        #expect(decoded.tokens.tokenType == "DPoP" && decoded.dpopKey == Data([1, 2, 3]) && decoded.protection == .standard)
    }

    @Test("the file and memory storages refuse a protection they cannot enforce, and keep what was stored")
    func protectionRefused() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let file = EncryptedFileTokenStorage(directory: folder)
        let memory = MemoryTokenStorage()
        for storage in [file, memory] as [any TokenStorage] {
            try await storage.write([1], account: "a", protection: .standard)
            for protection in [SessionProtection.userPresence, .biometry, .devicePasscode] {
                await #expect(throws: TokenStorageError.protectionUnavailable(protection)) {
                    try await storage.write([2], account: "a", protection: protection)
                }
            }
            #expect(try await storage.read(account: "a") == [1])
        }
    }

    @Test("tokens written by a newer SDK read as signed out, not as an error")
    func newerFormat() throws {
        #expect(try StoredTokenFormat.decode(Data(#"{"format":99,"whatever":true}"#.utf8)) == nil)
    }

    @Test("memory storage keeps accounts apart")
    func memory() async throws {
        let storage = MemoryTokenStorage()
        try await storage.write([1, 2, 3], account: "a")
        #expect(try await storage.read(account: "a") == [1, 2, 3])
        #expect(try await storage.read(account: "b") == nil)
        try await storage.remove(account: "a")
        #expect(try await storage.read(account: "a") == nil)
    }

    @Test("the encrypted file storage is owner-only, encrypted, and bound to its account")
    func encryptedFile() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let storage = EncryptedFileTokenStorage(directory: folder)
        let secret = Array("refresh-token-secret".utf8)
        try await storage.write(secret, account: "https://id.example.com#app")
        #expect(try await storage.read(account: "https://id.example.com#app") == secret)
        #expect(try await storage.read(account: "https://id.example.com#other") == nil)

        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 2)  // the key and one token file, no temporary files left behind
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(folder.path) == 0o700)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            #expect(try mode(path) == 0o600)
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(contents.range(of: Data(secret)) == nil)  // nothing in the clear
        }

        // A token file copied to another account's name does not open (the account is authenticated data).
        let tokenFile = try #require(files.first { $0.hasSuffix(".tokens") })
        let other = EncryptedFileTokenStorage(directory: folder)
        try await other.write([9], account: "second")
        let secondFile = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".tokens") && $0 != tokenFile })
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent(secondFile).path)
        try FileManager.default.copyItem(atPath: folder.appendingPathComponent(tokenFile).path, toPath: folder.appendingPathComponent(secondFile).path)
        await #expect(throws: TokenStorageError.self) { try await other.read(account: "second") }

        try await storage.remove(account: "https://id.example.com#app")
        #expect(try await storage.read(account: "https://id.example.com#app") == nil)
    }

    @Test("a folder readable by others is refused")
    func publicFolder() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        await #expect(throws: TokenStorageError.notPrivate(folder.path)) {
            try await EncryptedFileTokenStorage(directory: folder).write([1], account: "a")
        }
    }

    @Test("token sets know when they are about to expire")
    func expiry() {
        let now = Date()
        let set = TokenSet(accessToken: "a", expiresAt: now.addingTimeInterval(30))
        #expect(set.expires(within: 60, now: now))
        #expect(!set.expires(within: 10, now: now))
    }
}
