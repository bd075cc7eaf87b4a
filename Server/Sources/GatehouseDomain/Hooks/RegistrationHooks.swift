import Foundation
import GatehouseFoundation

/// The hooks asked before an account is created (the point `registration`), in the order configured, once the
/// registration form is filled in well and before any code is sent: each may allow it, refuse it with words for the
/// person, or set the name fields of the new profile. A hook that fails is passed over (`continue`) or makes
/// registration unavailable (`deny`).
package struct RegistrationHooks: Sendable {
    package let targets: [HookTarget]
    package let caller: HookCaller?

    /// No hooks: every registration is allowed without a call.
    package static let none = RegistrationHooks(hooks: [], caller: nil)

    /// The hooks of `hooks` that are asked at `registration`.
    package init(hooks: [HookTarget], caller: HookCaller?) {
        targets = hooks.filter { $0.points.contains(.registration) }
        self.caller = caller
    }

    /// The profile fields a hook may set: the name. The email and phone are the person's to prove, the username theirs
    /// to choose.
    package struct Names: Sendable, Equatable, Codable {
        package var name: String?
        package var givenName: String?
        package var familyName: String?

        package init(name: String? = nil, givenName: String? = nil, familyName: String? = nil) {
            self.name = name
            self.givenName = givenName
            self.familyName = familyName
        }

        enum CodingKeys: String, CodingKey {
            case name
            case givenName = "given_name"
            case familyName = "family_name"
        }

        /// `profile` with the names these give.
        package func applied(to profile: UserProfile) -> UserProfile {
            var changed = profile
            if let name { changed.name = name }
            if let givenName { changed.givenName = givenName }
            if let familyName { changed.familyName = familyName }
            return changed
        }
    }

    /// What the hooks decided.
    package enum Decision: Sendable, Equatable {
        /// Allowed, with the names the hooks set (none when they set none).
        case allow(Names)
        /// Refused, with the hook's words for the person (or none).
        case deny(String?)
        /// A hook whose policy is `deny` failed: nobody decided.
        case unavailable
    }

    /// What a hook is told: the profile as typed, and the client it is for.
    struct Request: Encodable {
        struct Profile: Encodable {
            var username: String
            var email: String
            var givenName: String?
            var familyName: String?
            var phoneNumber: String?

            enum CodingKeys: String, CodingKey {
                case username, email
                case givenName = "given_name"
                case familyName = "family_name"
                case phoneNumber = "phone_number"
            }
        }

        var type = "registration"
        var clientID: String
        var clientAddress: String?
        var profile: Profile

        enum CodingKeys: String, CodingKey {
            case type, profile
            case clientID = "client_id"
            case clientAddress = "client_address"
        }
    }

    /// The longest name a hook may set.
    package static let maximumName = 100

    /// Reads `{"decision": "allow" | "deny", "message": "…", "profile": {"name", "given_name", "family_name"}}`.
    static func read(_ answer: Data) throws -> Decision {
        let object = try HookAnswer.object(answer, members: ["decision", "message", "profile"])
        let message = try HookAnswer.message(in: object)
        var names = Names()
        if let profile = object["profile"] {
            guard let fields = profile as? [String: Any] else { throw HookCaller.Failure(description: "its profile is not a JSON object") }
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                guard let text = value as? String, (1...Self.maximumName).contains(text.count),
                    !text.contains(where: \.isNewline)
                else { throw HookCaller.Failure(description: "its profile's \(key) is not a name of one line") }
                switch key {
                case "name": names.name = text
                case "given_name": names.givenName = text
                case "family_name": names.familyName = text
                default: throw HookCaller.Failure(description: "its profile sets \(key), which hooks may not set")
                }
            }
        }
        switch object["decision"] as? String {
        case "allow": return .allow(names)
        case "deny": return .deny(message)
        default: throw HookCaller.Failure(description: "its decision is not allow or deny")
        }
    }

    /// Asks every hook about a registration of `profile` under `username` for `clientID` from `address`.
    package func decide(username: String, profile: UserProfile, clientID: String, address: String?) async -> Decision {
        guard let caller, !targets.isEmpty else { return .allow(Names()) }
        let request = Request(
            clientID: clientID, clientAddress: address,
            profile: .init(
                username: username, email: profile.email, givenName: profile.givenName, familyName: profile.familyName,
                phoneNumber: profile.phoneNumber))
        var names = Names()
        for target in targets {
            switch await caller.call(target, at: .registration, request: request, read: Self.read) {
            case .success(.deny(let message)): return .deny(message)
            case .success(.allow(let set)):
                names = Names(name: set.name ?? names.name, givenName: set.givenName ?? names.givenName, familyName: set.familyName ?? names.familyName)
            case .success(.unavailable): return .unavailable
            case .failure where target.failure == .continue: break
            case .failure: return .unavailable
            }
        }
        return .allow(names)
    }
}
