import Foundation
import GatehouseFoundation

/// The hooks asked once the first factor proved the account (the point `first_factor`), in the order configured: a
/// risk decision for the sign-in. A refusal wins over a second factor, which wins over an allowance; a hook that fails
/// is passed over (`continue`) or makes the sign-in unavailable (`deny`).
package struct FirstFactorHooks: Sendable {
    package let targets: [HookTarget]
    package let caller: HookCaller?

    /// No hooks: every sign-in is allowed without a call.
    package static let none = FirstFactorHooks(hooks: [], caller: nil)

    /// The hooks of `hooks` that are asked at `first_factor`.
    package init(hooks: [HookTarget], caller: HookCaller?) {
        targets = hooks.filter { $0.points.contains(.firstFactor) }
        self.caller = caller
    }

    /// What the hooks decided.
    package enum Decision: Sendable, Equatable {
        case allow
        case requireSecondFactor
        /// Refused, with the hook's words for the person (or none).
        case deny(String?)
        /// A hook whose policy is `deny` failed: nobody decided.
        case unavailable
    }

    /// What a hook is told: who proved which factor, for which client, from where.
    struct Request: Encodable {
        var type = "first_factor"
        var clientID: String
        var factor: String
        var clientAddress: String?
        var user: HookPerson

        enum CodingKeys: String, CodingKey {
            case type, factor, user
            case clientID = "client_id"
            case clientAddress = "client_address"
        }
    }

    /// Reads `{"decision": "allow" | "deny" | "require_second_factor", "message": "…"}`.
    static func read(_ answer: Data) throws -> Decision {
        let object = try HookAnswer.object(answer, members: ["decision", "message"])
        let message = try HookAnswer.message(in: object)
        switch object["decision"] as? String {
        case "allow": return .allow
        case "require_second_factor": return .requireSecondFactor
        case "deny": return .deny(message)
        default: throw HookCaller.Failure(description: "its decision is not allow, deny or require_second_factor")
        }
    }

    /// Asks every hook about `user`, who proved `factor` (`pwd`, `hwk` or `swk`, `fed`) for `clientID` from `address`.
    package func decide(user: User, clientID: String, factor: String, address: String?) async -> Decision {
        guard let caller, !targets.isEmpty else { return .allow }
        let request = Request(
            clientID: clientID, factor: factor, clientAddress: address, user: HookPerson(user))
        var decision = Decision.allow
        for target in targets {
            switch await caller.call(target, at: .firstFactor, request: request, read: Self.read) {
            case .success(.deny(let message)): return .deny(message)
            case .success(.requireSecondFactor): decision = .requireSecondFactor
            case .success: break
            case .failure where target.failure == .continue: break
            case .failure: return .unavailable
            }
        }
        return decision
    }
}
