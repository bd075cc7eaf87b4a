import Foundation
import GatehouseFoundation

/// The claims a relying party asked for by name (the `claims` request parameter, OpenID Connect Core §5.5), beyond
/// those its scopes bring: which go in the ID token and which in the userinfo answer. Only claims Gatehouse holds are
/// kept (a request may name others; they are left out, as §5.5 allows); `essential` changes nothing, since Gatehouse
/// gives every claim it holds. `acr` with `values` is the ID token's wish for an authentication context, like
/// `acr_values`.
package struct ClaimsRequest: Sendable, Equatable, Codable {
    /// Claims for the ID token.
    package var idToken: [String] = []
    /// Claims for the userinfo answer.
    package var userinfo: [String] = []
    /// The authentication contexts asked for in `id_token.acr` (its `value` or `values`), most preferred first.
    package var acrValues: [String]? = nil

    package enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case userinfo
        case acrValues = "acr_values"
    }

    package init(idToken: [String] = [], userinfo: [String] = [], acrValues: [String]? = nil) {
        self.idToken = idToken
        self.userinfo = userinfo
        self.acrValues = acrValues
    }

    /// The longest `claims` parameter read.
    package static let maximumLength = 4096

    /// Why a `claims` parameter is refused (`invalid_request`), in words for the client's developer.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// The request `text` makes: a JSON object whose members `id_token` and `userinfo` (any other is ignored) are
    /// objects of claim names, each `null` or an object with `essential`, `value` or `values`.
    package init(parsing text: String) throws(Refusal) {
        guard text.utf8.count <= Self.maximumLength else { throw Refusal(description: "claims is longer than \(Self.maximumLength) bytes.") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Refusal(description: "claims must be a JSON object with id_token and userinfo members (OpenID Connect Core §5.5).")
        }
        for member in ["id_token", "userinfo"] {
            guard let value = object[member] else { continue }
            guard let claims = value as? [String: Any] else { throw Refusal(description: "claims.\(member) must be a JSON object of claim names.") }
            for (name, wish) in claims {
                guard wish is NSNull || wish is [String: Any] else {
                    throw Refusal(description: "claims.\(member).\(name.prefix(40)) must be null or an object (essential, value, values).")
                }
                if let wish = wish as? [String: Any], let essential = wish["essential"], !JSONBoolean.isBoolean(essential) {
                    throw Refusal(description: "claims.\(member).\(name.prefix(40)).essential must be true or false.")
                }
            }
            let held = claims.keys.filter(ScopeClaims.supported.contains).sorted()
            if member == "id_token" { idToken = held } else { userinfo = held }
            if member == "id_token", let acr = claims["acr"] as? [String: Any] {
                if let values = acr["values"] as? [String] {
                    acrValues = values
                } else if let value = acr["value"] as? String {
                    acrValues = [value]
                }
            }
        }
    }
}
