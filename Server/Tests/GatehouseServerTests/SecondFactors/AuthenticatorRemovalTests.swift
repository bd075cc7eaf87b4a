import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Removing one second factor (the account page's Remove), on both engines: only that factor goes, with the
/// authenticator app its recovery codes; a factor the account does not have is reported, not an error.
@Suite("Removing one second factor")
struct AuthenticatorRemovalTests {
    @Test("the phone, the email address and the authenticator app each go alone", arguments: TestEngine.available)
    func removeEach(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let kim = try await FlowJourneyTests.addUser(server)
            let store = server.authenticators
            let generator = AuthenticatorStore.newTOTP()
            try await store.addTOTP(userID: kim.id, generator, usedStep: 0)
            _ = try await store.replaceRecoveryCodes(userID: kim.id, endingSessions: false)
            _ = try await store.enrollPhone(userID: kim.id, number: "+14155550100", method: .sms)
            _ = try await store.enrollEmail(userID: kim.id, address: "kim@example.com")
            #expect(try await store.enrolledFactors(userID: kim.id) == [.totp, .sms, .voice, .email, .recoveryCode])

            #expect(try await store.remove(.voice, userID: kim.id), "either way of a phone's codes names the phone")
            #expect(try await store.enrolledFactors(userID: kim.id) == [.totp, .email, .recoveryCode])
            #expect(try await store.remove(.totp, userID: kim.id))
            #expect(try await store.enrolledFactors(userID: kim.id) == [.email], "the recovery codes went with the app")
            #expect(try await store.remove(.totp, userID: kim.id) == false)
            #expect(try await store.remove(.passkey, userID: kim.id) == false, "passkeys have their own store")
            #expect(try await store.remove(.email, userID: kim.id))
            #expect(try await store.enrolledFactors(userID: kim.id).isEmpty)
        }
    }
}
