import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's signing keys: listed, rotated now, and a retired one withdrawn from the JWKS before the tokens it
/// signed expire (a key that leaked).
extension AdminConsole {
    func keysPage(_ person: Operator, notice: String? = nil, problem: String? = nil) async throws -> Response {
        var values = values(person, section: "Keys")
        values["keys"] = try await operations(person).signingKeys().map { key -> [String: Any] in
            [
                "kid": key.kid, "algorithm": key.algorithm, "status": key.status.rawValue, "created": Timestamp.format(key.createdAt),
                "activates": Timestamp.format(key.activatesAt), "retired": Timestamp.format(key.retiredAt), "isRetired": key.status == .retired,
            ]
        }
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Signing keys · Admin console", template: "admin-keys", values, status: problem == nil ? .ok : .badRequest)
    }

    /// Rotates the signing keys (a new key of every algorithm signs from now; the old ones stay published until every
    /// token they signed has expired), or withdraws a retired key; this node reads its keys again at once.
    func changeKeys(_ form: FormParameters, by person: Operator) async throws -> Response {
        do {
            switch form["change"] ?? "rotate" {
            case "rotate":
                let made = try await operations(person).rotateSigningKeys()
                try await keys.reloadNow()
                return try await keysPage(person, notice: "New keys sign from now: \(made.map(\.kid).joined(separator: ", ")).")
            case "withdraw":
                let kid = form["kid"] ?? ""
                try await operations(person).withdrawSigningKey(kid)
                try await keys.reloadNow()
                return try await keysPage(person, notice: "The key \(kid) left the JWKS: tokens it signed no longer verify.")
            default:
                return Self.unknownChange
            }
        } catch let problem as AdminProblem {
            return try await keysPage(person, problem: problem.detail)
        }
    }
}
