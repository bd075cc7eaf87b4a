import Foundation
import GatehouseProtocol

/// The claims of a validated ID token.
public struct IDTokenClaims: Sendable, Equatable {
    /// The provider that issued the token (`iss`); validated to be the configured issuer.
    public let issuer: String
    /// The user's subject identifier (`sub`): stable, never reassigned; key your app's records by it.
    public let subject: String
    /// Who the token is for (`aud`); validated to contain this app's client id.
    public let audience: [String]
    /// When the token stops being valid (`exp`).
    public let expiresAt: Date
    /// When the token was issued (`iat`).
    public let issuedAt: Date
    /// When the user last signed in with credentials (`auth_time`), which `max_age` is measured against.
    public let authTime: Date?
    /// The nonce of the request the token answers; validated against the one the app sent.
    public let nonce: String?
    /// The client the token was issued to (`azp`).
    public let authorizedParty: String?
    /// How the user signed in (`amr`): `pwd`, `otp`, `mfa`, and so on.
    public let authenticationMethods: [String]
    /// The assurance the sign-in met (`acr`), e.g. `urn:gatehouse:acr:mfa`.
    public let authenticationContext: String?
    /// The user's full name, with the `profile` scope.
    public let name: String?
    /// The username, with the `profile` scope.
    public let preferredUsername: String?
    /// The email address, with the `email` scope.
    public let email: String?
    /// Whether the address was confirmed, with the `email` scope.
    public let emailVerified: Bool?

    init(json: [String: Any]) throws {
        guard let issuer = json["iss"] as? String else { throw IDTokenValidationError.malformed("iss is missing") }
        guard let subject = json["sub"] as? String else { throw IDTokenValidationError.malformed("sub is missing") }
        guard let exp = (json["exp"] as? NSNumber)?.doubleValue else { throw IDTokenValidationError.malformed("exp is missing") }
        guard let iat = (json["iat"] as? NSNumber)?.doubleValue else { throw IDTokenValidationError.malformed("iat is missing") }
        if let single = json["aud"] as? String {
            audience = [single]
        } else if let many = json["aud"] as? [String] {
            audience = many
        } else {
            throw IDTokenValidationError.malformed("aud is missing")
        }
        self.issuer = issuer
        self.subject = subject
        expiresAt = Date(timeIntervalSince1970: exp)
        issuedAt = Date(timeIntervalSince1970: iat)
        authTime = (json["auth_time"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        nonce = json["nonce"] as? String
        authorizedParty = json["azp"] as? String
        authenticationMethods = json["amr"] as? [String] ?? []
        authenticationContext = json["acr"] as? String
        name = json["name"] as? String
        preferredUsername = json["preferred_username"] as? String
        email = json["email"] as? String
        emailVerified = json["email_verified"] as? Bool
    }
}

extension IDTokenClaims {
    /// The claims of a token that was validated when it was received and stored, read again without
    /// re-checking its signature or expiry (an ID token may expire long before the session does).
    static func previouslyValidated(_ token: String) -> IDTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return try? IDTokenClaims(json: json)
    }
}
