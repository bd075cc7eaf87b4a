import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Linked identities on both engines: one account per identity, several identities per account, and unlinking that
/// never leaves an account without a way to sign in.
@Suite("Linked identities")
struct FederatedIdentityStoreTests {
    static func profile(_ provider: String, _ subject: String) -> UpstreamProfile {
        var provider = IdentityProvider(id: provider, name: provider, clientID: "c")
        provider.trustEmail = true
        return UpstreamProfile(claims: ["sub": subject, "email": "\(subject)@example.org", "email_verified": true], provider: provider)!
    }

    @Test("link, sign in by (provider, subject), refuse a second link of the same identity, unlink down to the last way in", arguments: TestEngine.available)
    func linking(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let passwordless = try await server.users.create(
                username: "pat", profile: UserProfile(email: "pat@example.org"), passwordHash: User.noPassword, emailVerified: true, phoneVerified: false)
            let store = server.federatedIdentities
            try await store.link(Self.profile("corp", "p-1"), to: passwordless.id)
            try await store.link(Self.profile("github", "42"), to: passwordless.id)
            #expect(try await store.signIn(Self.profile("corp", "p-1")) == passwordless.id)
            #expect(try await store.signIn(Self.profile("corp", "42")) == nil, "a subject is only an identity at its own provider")
            let duplicate = await #expect(throws: DatabaseError.self) { try await store.link(Self.profile("corp", "p-1"), to: passwordless.id) }
            #expect(duplicate?.isDuplicate == true)
            let linked = try await store.identities(of: passwordless.id)
            #expect(linked.map(\.providerID).sorted() == ["corp", "github"] && linked.allSatisfy { $0.lastUsedAt != nil })

            #expect(try await store.unlink(userID: passwordless.id, providerID: "corp") == .unlinked)
            #expect(try await store.unlink(userID: passwordless.id, providerID: "github") == .lastWayToSignIn)
            #expect(try await store.unlink(userID: passwordless.id, providerID: "corp") == .notLinked)
            // A password is a way in: the last identity may go then.
            try await server.users.updatePasswordHash(userID: passwordless.id, to: try await server.hasher.hash("a long enough password 1"))
            #expect(try await store.unlink(userID: passwordless.id, providerID: "github") == .unlinked)
            #expect(try await store.identities(of: passwordless.id).isEmpty)

            // Kept tokens (sealed) are replaced by a newer sign-in's, and kept when a sign-in brings none.
            var kept = Self.profile("github", "7")
            kept.sealedTokens = "sealed-1"
            try await store.link(kept, to: passwordless.id)
            kept.sealedTokens = "sealed-2"
            _ = try await store.signIn(kept)
            _ = try await store.signIn(Self.profile("github", "7"))
            let stored = try await server.database.read { sql in
                try await sql.raw("SELECT sealed_tokens FROM federated_identities WHERE subject = '7'").first()?.decode(
                    column: "sealed_tokens", as: String?.self)
            }
            #expect(stored == "sealed-2")

            // Deleting the account takes its identities along.
            try await store.link(Self.profile("corp", "p-1"), to: passwordless.id)
            #expect(try await server.users.delete(username: "pat"))
            #expect(try await store.signIn(Self.profile("corp", "p-1")) == nil)
        }
    }

    @Test("an account without a password refuses every password, at the cost of an unknown name's hash", arguments: TestEngine.available)
    func noPassword(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            _ = try await server.users.create(
                username: "pat", profile: UserProfile(email: "pat@example.org"), passwordHash: User.noPassword, emailVerified: true, phoneVerified: false)
            for guess in ["!", "", "password"] {
                #expect(try await server.authenticator.authenticate(username: "pat", password: guess) == .invalidCredentials)
            }
        }
    }
}
