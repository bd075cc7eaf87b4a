import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation

@Suite("Hooks")
struct HookTargetTests {
    static let secret = "hook-signing-secret-0123456789-abcdefghijkl"

    @Test("a hook's settings are checked: its URL, secret, points, timeout and, at tokens, its claims' namespace")
    func validation() throws {
        var hook = HookTarget(id: "risk", url: "https://hooks.example.com/tokens", secret: Self.secret, points: [.tokens])
        #expect(throws: ConfigurationError.self) { try hook.validate(index: 0) }  // no namespace
        hook.claimsNamespace = "https://example.com/"
        try hook.validate(index: 0)
        for change in [
            { (hook: inout HookTarget) in hook.url = "http://hooks.example.com/" },
            { $0.secret = "too short" },
            { $0.secret = "whsec_" + Data(repeating: 7, count: 8).base64EncodedString() },
            { $0.points = [] },
            { $0.timeout = 0 },
            { $0.timeout = 11 },
            { $0.id = "no spaces" },
        ] {
            var changed = hook
            change(&changed)
            #expect(throws: ConfigurationError.self) { try changed.validate(index: 0) }
        }
        var standard = hook
        standard.secret = "whsec_" + Data(repeating: 7, count: 24).base64EncodedString()
        try standard.validate(index: 0)
        var loopback = hook
        loopback.url = "http://127.0.0.1:9000/hook"
        try loopback.validate(index: 0)

        // A hook at events takes its event types, or all of them; nowhere else are they read.
        var notified = HookTarget(id: "notify", url: "https://hooks.example.com/events", secret: Self.secret, points: [.events])
        try notified.validate(index: 0)
        notified.events = [.accountLocked]
        try notified.validate(index: 0)
        notified.events = []
        #expect(throws: ConfigurationError.self) { try notified.validate(index: 0) }
        var misplaced = hook
        misplaced.events = [.accountLocked]
        #expect(throws: ConfigurationError.self) { try misplaced.validate(index: 0) }
    }

    @Test("an answer's claims are taken only inside the namespace, from the members the point takes")
    func answers() throws {
        let namespace = "https://example.com/"
        func read(_ json: String) throws -> HookClaims {
            try HookClaims.read(Data(json.utf8), token: "id_token", namespace: namespace, allowedMembers: ["id_token"])
        }
        let claims = try read(#"{"id_token": {"https://example.com/team": {"b": 1, "a": "x/y"}, "https://example.com/admin": true}}"#)
        #expect(claims.members.map(\.name) == ["https://example.com/admin", "https://example.com/team"])
        #expect(claims.members.map { String(decoding: $0.json, as: UTF8.self) } == ["true", #"{"a":"x/y","b":1}"#])
        #expect(try read("{}").isEmpty)
        #expect(throws: HookCaller.Failure.self) { try read(#"{"id_token": {"email": "x@example.com"}}"#) }
        #expect(throws: HookCaller.Failure.self) { try read(#"{"id_token": {"https://example.com/": 1}}"#) }
        #expect(throws: HookCaller.Failure.self) { try read(#"{"access_token": {}}"#) }
        #expect(throws: HookCaller.Failure.self) { try read(#"{"id_token": ["https://example.com/x"]}"#) }
        #expect(throws: HookCaller.Failure.self) { try read("[1]") }
    }

    @Test("userinfo claims kept with a token read back the same, names escaped; a damaged record reads as none")
    func kept() throws {
        var claims = HookClaims()
        claims.members = [("https://example.com/\"q\"", Array(#"{"a":[1,2]}"#.utf8)), ("https://example.com/on", Array("true".utf8))]
        #expect(HookClaims(storedJSON: claims.storedJSON) == claims)
        #expect(HookClaims(storedJSON: nil).isEmpty && HookClaims(storedJSON: "[1]").isEmpty && HookClaims(storedJSON: "{").isEmpty)
        var info = UserinfoClaims(sub: "u")
        info.extra = claims
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.jsonBytes)) as? [String: Any])
        #expect((object["https://example.com/on"] as? Bool) == true && object["sub"] as? String == "u")
    }

    @Test("claims a hook added are written into the ID token and a JWT access token after the standard ones, their names escaped")
    func written() throws {
        var claims = IDTokenClaims(iss: "https://id.example.com", sub: "u", aud: "c", exp: 2, iat: 1, authTime: 1, azp: "c")
        claims.extra.members = [("https://example.com/\"q\"", Array("[1,2]".utf8))]
        let object = try #require(try JSONSerialization.jsonObject(with: Data(claims.jsonBytes)) as? [String: Any])
        #expect(object["https://example.com/\"q\""] as? [Int] == [1, 2])
        #expect(object["sub"] as? String == "u")

        var access = AccessTokenClaims(
            iss: "https://id.example.com", sub: "u", aud: "https://api.example.com/", clientID: "c", scope: nil, jti: "j", exp: 2, iat: 1)
        access.extra.members = [("https://example.com/tier", Array(#""gold""#.utf8))]
        let written = try #require(try JSONSerialization.jsonObject(with: Data(access.jsonBytes)) as? [String: Any])
        #expect(written["https://example.com/tier"] as? String == "gold" && written["aud"] as? String == "https://api.example.com/")
    }

    @Test("a risk hook's answer is a decision, with a short message for the person at most")
    func decisions() throws {
        func read(_ json: String) throws -> FirstFactorHooks.Decision { try FirstFactorHooks.read(Data(json.utf8)) }
        #expect(try read(#"{"decision": "allow"}"#) == .allow)
        #expect(try read(#"{"decision": "require_second_factor"}"#) == .requireSecondFactor)
        #expect(try read(#"{"decision": "deny", "message": "Call us."}"#) == .deny("Call us."))
        #expect(try read(#"{"decision": "deny"}"#) == .deny(nil))
        for wrong in [
            #"{"decision": "perhaps"}"#, "{}", #"{"decision": "allow", "claims": {}}"#, #"{"decision": "deny", "message": 3}"#,
            #"{"decision": "deny", "message": ""}"#, "{\"decision\": \"deny\", \"message\": \"\(String(repeating: "x", count: 301))\"}", "true",
        ] {
            #expect(throws: HookCaller.Failure.self, "\(wrong)") { try read(wrong) }
        }
        var hook = HookTarget(id: "risk", url: "https://hooks.example.com/risk", secret: Self.secret, points: [.firstFactor])
        try hook.validate(index: 0)  // no claims, no namespace needed
        hook.points = [.firstFactor, .tokens]
        #expect(throws: ConfigurationError.self) { try hook.validate(index: 0) }
    }

    @Test("a registration hook's answer allows, with names at most, or refuses")
    func registrations() throws {
        func read(_ json: String) throws -> RegistrationHooks.Decision { try RegistrationHooks.read(Data(json.utf8)) }
        #expect(try read(#"{"decision": "allow"}"#) == .allow(.init()))
        #expect(
            try read(#"{"decision": "allow", "profile": {"given_name": "Grace", "name": "G. Hopper"}}"#) == .allow(.init(name: "G. Hopper", givenName: "Grace"))
        )
        #expect(try read(#"{"decision": "deny", "message": "Closed."}"#) == .deny("Closed."))
        for wrong in [
            #"{"decision": "allow", "profile": {"email": "x@example.com"}}"#, #"{"decision": "allow", "profile": {"name": ""}}"#,
            #"{"decision": "allow", "profile": {"name": "two\nlines"}}"#, #"{"decision": "allow", "profile": []}"#,
            #"{"decision": "require_second_factor"}"#, #"{"decision": "allow", "claims": {}}"#,
        ] {
            #expect(throws: HookCaller.Failure.self, "\(wrong)") { try read(wrong) }
        }
        let profile = UserProfile(email: "g@example.com", givenName: "Grace", familyName: "Hopper")
        #expect(RegistrationHooks.Names(familyName: "Murray Hopper").applied(to: profile).familyName == "Murray Hopper")
        #expect(RegistrationHooks.Names(familyName: "Murray Hopper").applied(to: profile).givenName == "Grace")
    }
}
