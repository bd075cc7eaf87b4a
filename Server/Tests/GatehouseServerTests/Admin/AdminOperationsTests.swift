import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The admin operations on a database, the ones the admin API and the tool on the server's machine both run: each
/// change with its audit event, naming who made it.
@Suite("Admin operations on the database")
struct AdminOperationsTests {
    private func operations(_ server: IdentityServer) -> DatabaseAdminOperations {
        let secret = server.secret
        let hasher = server.hasher
        let settings = AdminSettings(
            secret: { secret }, passwords: server.configuration.passwords, hashPassword: { try await hasher.hash($0) },
            lifetimes: server.configuration.tokens, maxPINAttempts: server.configuration.authenticator.maxPINAttempts, origin: "operator")
        return DatabaseAdminOperations(database: server.database, clock: server.clock, settings: settings, actor: "operator:kim")
    }

    @Test("clients: a generated secret shown once, a given one kept, a taken id refused, a delete recorded", arguments: TestEngine.available)
    func clients(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let operations = operations(server)
            let generated = try await operations.createClient(ClientRegistration(id: "shop", redirectURIs: ["https://shop.example/cb"]))
            let secret = try #require(generated.generatedSecret)
            #expect(secret.count >= 43 && !generated.client.isPublic)
            #expect(try await server.clients.find(id: "shop")?.secretHash == TokenDigest.hex(secret))
            let given = String(repeating: "g", count: 40)
            let chosen = try await operations.createClient(
                ClientRegistration(id: "legacy", redirectURIs: ["https://legacy.example/cb"], secret: given, requirePKCE: false))
            #expect(chosen.generatedSecret == nil && chosen.client.requirePKCE == false)
            #expect(try await server.clients.find(id: "legacy")?.secretHash == TokenDigest.hex(given))
            let app = try await operations.createClient(ClientRegistration(id: "app", redirectURIs: ["com.example.app:/cb"], isPublic: true))
            #expect(app.generatedSecret == nil && app.client.isPublic)
            await #expect(throws: AdminProblem.self) {
                try await operations.createClient(ClientRegistration(id: "shop", redirectURIs: ["https://other.example/cb"]))
            }
            await #expect(throws: ConfigurationError.self) {
                try await operations.createClient(ClientRegistration(id: "bad", redirectURIs: ["http://plain.example/cb"]))
            }
            #expect(try await operations.clients().map(\.id).sorted() == ["app", "legacy", "shop"])
            try await operations.deleteClient("shop")
            await #expect(throws: AdminProblem.self) { try await operations.deleteClient("shop") }
            let events = try await server.audit.events(.init(types: [.clientCreated, .clientDeleted], clientID: "shop"), limit: 10)
            #expect(events.map(\.type) == [.clientCreated, .clientDeleted])
            #expect(events.allSatisfy { $0.actor == "operator:kim" })
        }
    }

    @Test(
        "an operator's operations stop short of an admin's: admin clients, and role holders' contacts, factors and password",
        arguments: TestEngine.available)
    func operatorLimits(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let full = operations(server)
            let admin = try await full.createUser(NewAccount(username: "ada", email: "ada@example.com", emailVerified: true))
            let person = try await full.createUser(NewAccount(username: "pat", email: "pat@example.com", emailVerified: true))
            try await full.grantAdminRole(.admin, to: "ada")
            _ = try await full.createClient(ClientRegistration(id: "automation", redirectURIs: [], scopes: ["gatehouse:admin"]))
            let limited = full.acting(as: .console(.operator))
            func refusedAsAdminOnly(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
                let problem = await #expect(throws: AdminProblem.self, sourceLocation: sourceLocation) { try await body() }
                #expect(problem?.kind == "admin-only", sourceLocation: sourceLocation)
            }
            await refusedAsAdminOnly { _ = try await limited.rotateClientSecret(of: "automation") }
            await refusedAsAdminOnly { try await limited.deleteClient("automation") }
            await refusedAsAdminOnly {
                _ = try await limited.createClient(ClientRegistration(id: "standing", redirectURIs: [], scopes: ["gatehouse:admin:read"]))
            }
            _ = try await limited.createClient(ClientRegistration(id: "reports", redirectURIs: ["https://reports.example/cb"], scopes: ["openid"]))
            var grow = AdminClientChange()
            grow.scopes = ["openid", "gatehouse:admin"]
            await refusedAsAdminOnly { _ = try await limited.updateClient("reports", grow, ifMatch: "*") }
            var move = AdminUserChange()
            move.email = "mallory@example.com"
            await refusedAsAdminOnly { _ = try await limited.updateUser(admin.id, move, ifMatch: "*") }
            await refusedAsAdminOnly { try await limited.resetSecondFactors(of: admin.id) }
            await refusedAsAdminOnly { try await limited.setPassword("a long and unusual passphrase 77", of: admin.id) }
            await refusedAsAdminOnly { try await limited.deleteUser(id: admin.id) }
            #expect(try await full.user(id: admin.id).email == "ada@example.com")
            // What is not an admin's power stays the operator's: a person without a role, a rename.
            #expect(try await limited.updateUser(person.id, move, ifMatch: "*").email == "mallory@example.com")
            var rename = AdminUserChange()
            rename.name = "Ada L."
            #expect(try await limited.updateUser(admin.id, rename, ifMatch: "*").name == "Ada L.")
            // The same operations for an admin in the console, and for the admin API and the terminal (full).
            _ = try await full.acting(as: .console(.admin)).rotateClientSecret(of: "automation")
            _ = try await full.updateClient("reports", grow, ifMatch: "*")
        }
    }

    @Test("console roles: one per person, replaced when given again, taken away, gone with the account, each recorded", arguments: TestEngine.available)
    func consoleRoles(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let operations = operations(server)
            let ann = try await operations.createUser(NewAccount(username: "ann", email: "ann@example.com", emailVerified: true))
            _ = try await operations.createUser(NewAccount(username: "bo", email: "bo@example.com", emailVerified: true))
            let roles = AdminRoleStore(database: server.database, clock: server.clock)
            #expect(try await roles.role(of: ann.id) == nil)
            try await operations.grantAdminRole(.viewer, to: "ann")
            try await operations.grantAdminRole(.operator, to: "Ann")
            try await operations.grantAdminRole(.admin, to: "bo")
            #expect(try await roles.role(of: ann.id) == .operator)
            let holders = try await operations.adminRoleHolders()
            #expect(holders.map(\.username) == ["ann", "bo"] && holders.map(\.role) == [.operator, .admin])
            #expect(holders.allSatisfy { $0.grantedBy == "operator:kim" })
            await #expect(throws: AdminProblem.self) { try await operations.grantAdminRole(.admin, to: "nobody") }
            try await operations.revokeAdminRole(of: "ann")
            await #expect(throws: AdminProblem.self) { try await operations.revokeAdminRole(of: "ann") }
            #expect(try await roles.role(of: ann.id) == nil)
            let events = try await server.audit.events(.init(types: [.adminRoleGranted, .adminRoleRevoked], userID: ann.id), limit: 10)
            #expect(events.map(\.type) == [.adminRoleGranted, .adminRoleGranted, .adminRoleRevoked])
            #expect(events.map { $0.details["role"] } == ["viewer", "operator", "operator"] && events.allSatisfy { $0.actor == "operator:kim" })
            // A deleted account holds no role.
            try await operations.deleteUser(id: try await operations.user(named: "bo").id)
            #expect(try await operations.adminRoleHolders().isEmpty)
            #expect(!AdminRole.viewer.canChange && AdminRole.operator.canChange && AdminRole.admin.canChange)
        }
    }

    @Test("users: a password held to the policy, a taken name refused, lock and unlock, deletion, each recorded", arguments: TestEngine.available)
    func users(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let operations = operations(server)
            await #expect(throws: AdminProblem.self) {
                try await operations.createUser(NewAccount(username: "ann", email: "ann@example.com", emailVerified: true, password: "password"))
            }
            let ann = try await operations.createUser(
                NewAccount(username: "Ann", email: "ann@example.com", emailVerified: true, name: "Ann", password: "a long and unusual passphrase 9"))
            #expect(ann.username == "ann" && ann.emailVerified && ann.hasPassword)
            #expect(try await operations.user(named: "ANN").id == ann.id)
            await #expect(throws: AdminProblem.self) {
                try await operations.createUser(NewAccount(username: "ann", email: "other@example.com", emailVerified: false))
            }
            try await operations.setLocked(userID: ann.id, true)
            #expect(try await operations.users().first { $0.id == ann.id }?.locked == true)
            try await operations.setLocked(userID: ann.id, false)
            try await operations.requirePasswordChange(userID: ann.id)
            try await operations.deleteUser(id: ann.id)
            await #expect(throws: AdminProblem.self) { try await operations.user(named: "ann") }
            await #expect(throws: AdminProblem.self) { try await operations.deleteUser(id: ann.id) }
            let events = try await server.audit.events(.init(userID: ann.id), limit: 10)
            #expect(events.map(\.type) == [.accountCreated, .accountLocked, .accountUnlocked, .passwordChangeRequired, .accountDeleted])
            #expect(events.allSatisfy { $0.actor == "operator:kim" })
            #expect(events.first?.details["by"] == "operator")
        }
    }

    @Test("keys: a rotation makes new active keys of every algorithm and retires the old ones, once recorded")
    func keys() async throws {
        try await TestServer.withServer { server in
            let operations = operations(server)
            let before = try await operations.signingKeys()
            let created = try await operations.rotateSigningKeys()
            #expect(created.allSatisfy(\.active) && Set(created.map(\.algorithm)) == Set(before.map(\.algorithm)))
            let after = try await operations.signingKeys()
            #expect(after.filter(\.active).map(\.kid).sorted() == created.map(\.kid).sorted())
            #expect(Set(before.map(\.kid)).isSubset(of: Set(after.filter { !$0.active }.map(\.kid))))
            let rotations = try await server.audit.events(.init(types: [.keysRotated]), limit: 10)
            #expect(rotations.count == 1 && rotations.first?.actor == "operator:kim")
        }
    }

    @Test("keys: a retired key is withdrawn from the set at once and recorded; a key that signs, or an unknown one, is not", arguments: TestEngine.available)
    func withdrawal(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let operations = operations(server)
            let retired = try await operations.signingKeys()
            let signing = try await operations.rotateSigningKeys()
            await #expect(throws: AdminProblem.self) { try await operations.withdrawSigningKey(signing[0].kid) }
            await #expect(throws: AdminProblem.self) { try await operations.withdrawSigningKey("no-such-key") }
            try await operations.withdrawSigningKey(retired[0].kid)
            let left = try await operations.signingKeys().map(\.kid)
            #expect(!left.contains(retired[0].kid) && Set(signing.map(\.kid)).isSubset(of: Set(left)) && left.count == retired.count - 1 + signing.count)
            let removed = try await server.audit.events(.init(types: [.keyRemoved]), limit: 10)
            #expect(removed.map(\.details) == [["kid": retired[0].kid, "by": "withdrawn"]] && removed.first?.actor == "operator:kim")
        }
    }

    @Test(
        "users: a profile changed only as read (its entity tag), each change recorded; factors reset and everything signed out, recorded",
        arguments: TestEngine.available)
    func profileAndReset(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let operations = operations(server)
            let ann = try await operations.createUser(NewAccount(username: "ann", email: "ann@example.com", emailVerified: true))
            var change = AdminUserChange()
            change.givenName = "Ann"
            change.phoneNumber = "+49 151 2345678"
            await #expect(throws: AdminProblem.self) { try await operations.updateUser(ann.id, change, ifMatch: "\"stale\"") }
            let changed = try await operations.updateUser(ann.id, change, ifMatch: AdminETag.of(ann))
            #expect(changed.givenName == "Ann" && changed.phoneNumber == "+491512345678" && !changed.phoneNumberVerified)
            try await operations.resetSecondFactors(of: ann.id)
            try await operations.signOutEverywhere(ann.id)
            let events = try await server.audit.events(.init(userID: ann.id), limit: 10)
            #expect(events.map(\.type) == [.accountCreated, .accountUpdated, .factorRemoved, .tokenRevoked])
            #expect(events[1].details["given_name.after"] == "Ann" && events.allSatisfy { $0.actor == "operator:kim" })
        }
    }
}
