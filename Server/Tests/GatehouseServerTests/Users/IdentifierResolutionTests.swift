import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Identifiers resolve to one account")
struct IdentifierResolutionTests {
    private let hash = "$scrypt$ln=10,r=8,p=1$AA$AA"

    @Test("a username shaped like an email must be the user's own email")
    func emailShapedUsernames() throws {
        #expect(throws: ConfigurationError.self) {
            try AccountInputValidation.validateUsername("victim@example.com", email: "mallory@example.com")
        }
        try AccountInputValidation.validateUsername("Ann@Example.com", email: "ann@example.com")
        try AccountInputValidation.validateUsername("ann.lee", email: "ann@example.com")
    }

    @Test("the store refuses such a username, and an identifier with '@' finds the email's owner", arguments: TestEngine.available)
    func storeResolution(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let victim = try await server.users.create(username: "victim", email: "victim@example.com", name: nil, passwordHash: hash)
            await #expect(throws: ConfigurationError.self) {
                try await server.users.create(username: "victim@example.com", email: "mallory@example.com", name: nil, passwordHash: hash)
            }
            let ann = try await server.users.create(username: "ann@example.com", email: "ann@example.com", name: nil, passwordHash: hash)
            #expect(try await server.users.find(usernameOrEmail: "VICTIM@example.com")?.id == victim.id)
            #expect(try await server.users.find(usernameOrEmail: "victim")?.id == victim.id)
            #expect(try await server.users.find(usernameOrEmail: "ann@example.com")?.id == ann.id)
            #expect(try await server.users.find(usernameOrEmail: "example.com") == nil)
        }
    }
}
