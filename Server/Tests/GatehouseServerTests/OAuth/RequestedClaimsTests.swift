import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// `at_hash` against OpenID Connect Core's published example, and the `claims` request parameter read as §5.5 says.
@Suite("Requested claims and at_hash")
struct RequestedClaimsTests {
    @Test("at_hash of OpenID Connect Core §A.3's access token is the example's")
    func atHashMatchesTheSpecification() {
        #expect(IDTokenIssuer.hash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test("claims keeps held claims per target, takes acr's values, ignores unknown members and claims")
    func parsesTheClaimsParameter() throws {
        let parsed = try ClaimsRequest(
            parsing: """
                {"userinfo": {"given_name": {"essential": true}, "nickname": null, "email": {"essential": true}, "picture": null},
                 "id_token": {"auth_time": {"essential": true}, "acr": {"values": ["urn:mace:incommon:iap:silver"]}, "address": null},
                 "verified_claims": {}}
                """)
        #expect(parsed.userinfo == ["email", "given_name"])
        #expect(parsed.idToken == ["address"])
        #expect(parsed.acrValues == ["urn:mace:incommon:iap:silver"])
        #expect(try ClaimsRequest(parsing: #"{"id_token": {"acr": {"value": "x"}}}"#).acrValues == ["x"])
        #expect(try ClaimsRequest(parsing: "{}") == ClaimsRequest())
        for refused in ["", "null", "[]", #"{"userinfo": []}"#, #"{"id_token": {"email": true}}"#, #"{"id_token": {"email": {"essential": 1}}}"#] {
            #expect(throws: ClaimsRequest.Refusal.self, "\(refused)") { try ClaimsRequest(parsing: refused) }
        }
    }
}
