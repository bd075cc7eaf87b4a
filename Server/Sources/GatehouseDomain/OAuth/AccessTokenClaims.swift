import Foundation
import GatehouseFoundation
import GatehouseProtocol
import JWTKit

/// The claims of a JWT access token (RFC 9068 §2.2), signed with the server's keys and typed `at+jwt`.
package struct AccessTokenClaims: JWTPayload, Equatable {
    package var iss: String
    /// The person, or the client itself for a token it asked for on its own behalf.
    package var sub: String
    /// The resource the token is for.
    package var aud: String
    package var clientID: String
    /// Space-separated, as at the token endpoint; absent when no scope was granted.
    package var scope: String?
    /// The random token the row is stored under (``TokenStore/jwtKey(id:)``).
    package var jti: String
    package var exp: Int64
    package var iat: Int64
    package var authTime: Int64?
    package var acr: String?
    package var amr: [String]?
    /// The thumbprint of the DPoP key the token is bound to (RFC 9449 §6.1, `cnf.jkt`).
    package var jkt: String?
    /// The clients acting for the subject (RFC 8693 `act`), most recent first.
    package var actors: [String] = []
    /// Claims the operator's hooks at `tokens` added, each within its namespace.
    package var extra = HookClaims()

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, scope, jti, exp, iat, acr, amr, cnf, act
        case clientID = "client_id"
        case authTime = "auth_time"
    }

    private struct Confirmation: Codable {
        var jkt: String
    }

    package init(
        iss: String, sub: String, aud: String, clientID: String, scope: String?, jti: String, exp: Int64, iat: Int64, authTime: Int64? = nil,
        acr: String? = nil, amr: [String]? = nil, jkt: String? = nil, actors: [String] = []
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.clientID = clientID
        self.scope = scope
        self.jti = jti
        self.exp = exp
        self.iat = iat
        self.authTime = authTime
        self.acr = acr
        self.amr = amr
        self.jkt = jkt
        self.actors = actors
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        aud = try container.decode(String.self, forKey: .aud)
        clientID = try container.decode(String.self, forKey: .clientID)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        jti = try container.decode(String.self, forKey: .jti)
        exp = try container.decode(Int64.self, forKey: .exp)
        iat = try container.decode(Int64.self, forKey: .iat)
        authTime = try container.decodeIfPresent(Int64.self, forKey: .authTime)
        acr = try container.decodeIfPresent(String.self, forKey: .acr)
        amr = try container.decodeIfPresent([String].self, forKey: .amr)
        jkt = try container.decodeIfPresent(Confirmation.self, forKey: .cnf)?.jkt
        actors = try container.decodeIfPresent(TokenActor.self, forKey: .act)?.subjects ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(sub, forKey: .sub)
        try container.encode(aud, forKey: .aud)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encode(jti, forKey: .jti)
        try container.encode(exp, forKey: .exp)
        try container.encode(iat, forKey: .iat)
        try container.encodeIfPresent(authTime, forKey: .authTime)
        try container.encodeIfPresent(acr, forKey: .acr)
        try container.encodeIfPresent(amr, forKey: .amr)
        try container.encodeIfPresent(jkt.map(Confirmation.init(jkt:)), forKey: .cnf)
        try container.encodeIfPresent(TokenActor.chain(actors), forKey: .act)
    }

    /// Signature checks are done by the key collection; expiry and audience by whoever accepts the token.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The `jti` of `token` when it has a JWT's shape, read without checking its signature: only to find the token's
    /// row, which alone says whether it is active. `nil` for an opaque token (which has no dots).
    package static func unverifiedID(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 16 * 1024, let payload = Base64URL.decode(String(parts[1])),
            let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], let id = object["jti"] as? String, !id.isEmpty
        else { return nil }
        return id
    }
}

extension AccessTokenClaims: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("acr", acr)
        if let actor = Self.actor(actors[...]) { writer.member("act", object: actor) }
        writer.member("amr", amr)
        writer.member("aud", aud)
        writer.member("auth_time", authTime)
        if let jkt {
            var confirmation = JSONObjectWriter(capacity: 64)
            confirmation.member("jkt", jkt)
            writer.member("cnf", object: confirmation)
        }
        writer.member("client_id", clientID)
        writer.member("exp", exp)
        writer.member("iat", iat)
        writer.member("iss", iss)
        writer.member("jti", jti)
        writer.member("scope", scope)
        writer.member("sub", sub)
        for (name, json) in extra.members { writer.member(named: name, json: json) }
    }

    /// The `act` object of `actors`, most recent first: `{"sub": first, "act": {…the rest}}`.
    private static func actor(_ actors: ArraySlice<String>) -> JSONObjectWriter? {
        guard let first = actors.first else { return nil }
        var writer = JSONObjectWriter(capacity: 64)
        if let earlier = actor(actors.dropFirst()) { writer.member("act", object: earlier) }
        writer.member("sub", first)
        return writer
    }
}
