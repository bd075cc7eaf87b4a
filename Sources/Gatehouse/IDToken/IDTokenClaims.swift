import Foundation
import GatehouseProtocol

/// The claims of a validated ID token.
public struct IDTokenClaims: Sendable, Equatable {
    public let issuer: String
    public let subject: String
    public let audience: [String]
    public let expiresAt: Date
    public let issuedAt: Date
    public let authTime: Date?
    public let nonce: String?
    public let authorizedParty: String?
    public let authenticationMethods: [String]
    public let authenticationContext: String?
    public let name: String?
    public let preferredUsername: String?
    public let email: String?
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
