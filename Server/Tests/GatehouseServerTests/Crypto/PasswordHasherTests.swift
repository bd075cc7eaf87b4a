import Foundation
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Password hashing")
struct PasswordHasherTests {
    /// RFC 7914 §12 test vectors (also checked against Python's hashlib.scrypt).
    @Test(
        "scrypt matches RFC 7914 test vectors",
        arguments: [
            (
                "", "", 4, 1, 1,
                "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
            ),
            (
                "password", "NaCl", 10, 8, 16,
                "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
            ),
        ])
    func rfc7914Vectors(password: String, salt: String, logN: Int, r: Int, p: Int, expected: String) throws {
        let derived = try PasswordHasher.derive(
            password: password, salt: Array(salt.utf8),
            parameters: .init(logN: logN, blockSize: r, parallelism: p), length: 64)
        #expect(derived.map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test("passwords are NFKC-normalized before hashing; a hash of a password as typed before that still verifies and is replaced at sign-in")
    func unicodeNormalization() async throws {
        try await TestServer.withServer { server in
            let ligature = "\u{FB01}ne caf\u{0065}\u{0301} password"  // "ﬁ" ligature, "e" + combining acute
            let composed = "fine caf\u{00E9} password"
            #expect(PasswordHasher.normalized(ligature) == composed)
            let hash = try await server.hasher.hash(ligature)
            #expect(try await server.hasher.check(composed, against: hash) == .normalized)
            #expect(try await server.hasher.check(ligature, against: hash) == .normalized)
            #expect(try await server.hasher.check("fine cafe password", against: hash) == .none)

            // A hash made over the password as typed, as before normalizing: it still verifies, and signing in replaces it.
            let salt = SecureRandom.bytes(16)
            let parameters = server.hasher.parameters
            let legacy = PasswordHasher.encode(
                parameters: parameters, salt: salt,
                hash: try PasswordHasher.derive(password: ligature, salt: salt, parameters: parameters, length: 32))
            #expect(try await server.hasher.check(ligature, against: legacy) == .asTyped)
            #expect(try await server.hasher.check(composed, against: legacy) == .none)
            let user = try await server.users.create(username: "noor", email: "noor@example.com", name: nil, passwordHash: legacy)
            #expect(try await server.authenticator.authenticate(username: "noor", password: ligature) == .authenticated(user))
            let replaced = try #require(try await server.users.find(username: "noor")?.passwordHash)
            #expect(replaced != legacy)
            #expect(try await server.hasher.check(composed, against: replaced) == .normalized)
        }
    }

    @Test("hashes are self-describing PHC strings that verify, and only with the right password")
    func roundTrip() async throws {
        let hasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1), maxConcurrentHashes: 2)
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(try await hasher.verify("correct horse battery staple", against: hash))
        #expect(try await !hasher.verify("correct horse battery stapler", against: hash))
        #expect(try await hasher.hash("same") != hasher.hash("same"))  // fresh salt each time
        #expect(!hasher.needsRehash(hash))
        try await hasher.shutdown()

        let stronger = PasswordHasher(parameters: .init(logN: 11, blockSize: 8, parallelism: 1), maxConcurrentHashes: 1)
        #expect(stronger.needsRehash(hash))
        // Old hashes still verify after the parameters change: they carry their own.
        #expect(try await stronger.verify("correct horse battery staple", against: hash))
        try await stronger.shutdown()
    }

    @Test(
        "malformed hashes never verify",
        arguments: [
            "", "plain", "$scrypt$ln=10,r=8$c2FsdA$aGFzaA", "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA",
            "$scrypt$ln=99,r=8,p=1$c2FsdA$aGFzaA", "$scrypt$ln=10,r=8,p=1$!!$aGFzaA",
        ])
    func malformed(hash: String) async throws {
        let hasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1), maxConcurrentHashes: 1)
        #expect(try await !hasher.verify("anything", against: hash))
        try await hasher.shutdown()
    }

    @Test("the default follows OWASP's scrypt recommendation")
    func owaspDefault() {
        let defaults = PasswordHashingParameters.owaspDefault
        #expect(defaults.logN == 17 && defaults.blockSize == 8 && defaults.parallelism == 1)
        #expect(defaults.memoryBytes == 128 * 1024 * 1024)
    }
}

@Suite("Secrets")
struct SecretTests {
    @Test("sealed values open only with the same secret and purpose")
    func secretBox() throws {
        let secret = SecureRandom.bytes(32)
        let box = SecretBox(serverSecret: secret, purpose: "a")
        let sealed = try box.seal(Data("hello".utf8))
        #expect(try box.open(sealed) == Data("hello".utf8))
        #expect(throws: (any Error).self) { try SecretBox(serverSecret: secret, purpose: "b").open(sealed) }
        #expect(throws: (any Error).self) { try SecretBox(serverSecret: SecureRandom.bytes(32), purpose: "a").open(sealed) }
    }

    @Test("tokens carry 256 bits and do not repeat")
    func tokens() {
        let tokens = Set((0..<1000).map { _ in SecureRandom.token() })
        #expect(tokens.count == 1000)
        #expect(tokens.allSatisfy { $0.count == 43 })
    }

    @Test("random bytes come in the length asked for, every byte value appears, and draws do not repeat")
    func randomBytes() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect([1, 7, 8, 9, 33, 4096].allSatisfy { SecureRandom.bytes($0).count == $0 })
        // 64 KiB from one draw: each byte value is expected 256 times; a buffer left unfilled (zeros) or filled
        // only in part would miss most values.
        let large = SecureRandom.bytes(65536)
        #expect(Set(large).count == 256)
        #expect(large.filter { $0 == 0 }.count < 512)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}
