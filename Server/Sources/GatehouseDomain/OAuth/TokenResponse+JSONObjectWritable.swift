import GatehouseFoundation
import GatehouseProtocol

extension TokenResponse: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("access_token", accessToken)
        writer.member("expires_in", expiresIn)
        writer.member("id_token", idToken)
        writer.member("issued_token_type", issuedTokenType)
        writer.member("refresh_token", refreshToken)
        writer.member("scope", scope)
        writer.member("token_type", tokenType)
    }
}
