import GatehouseFoundation
import JWTKit

/// The claims of a logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): who signed out (`sub`, and `sid` when
/// the sign-in had a browser session), for which client (`aud`), marked by the back-channel logout event; never a
/// `nonce`, so that no one can take it for an ID token. Signed with the server's keys and typed `logout+jwt`.
package struct LogoutTokenClaims: JWTPayload, Equatable {
    /// The event a logout token carries, as the member name of `events`.
    package static let event = "http://schemas.openid.net/event/backchannel-logout"

    package var iss: String
    package var aud: String
    package var iat: Int64
    package var exp: Int64
    package var jti: String
    package var sub: String
    package var sid: String?
    package var events: [String: [String: String]] = [Self.event: [:]]

    package init(iss: String, aud: String, iat: Int64, exp: Int64, jti: String, sub: String, sid: String?) {
        self.iss = iss
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.sub = sub
        self.sid = sid
    }

    /// Signature checks are done by the key collection.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension LogoutTokenClaims: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("aud", aud)
        var events = JSONObjectWriter(capacity: 64)
        events.member("http://schemas.openid.net/event/backchannel-logout", object: JSONObjectWriter(capacity: 2))
        writer.member("events", object: events)
        writer.member("exp", exp)
        writer.member("iat", iat)
        writer.member("iss", iss)
        writer.member("jti", jti)
        writer.member("sid", sid)
        writer.member("sub", sub)
    }
}
