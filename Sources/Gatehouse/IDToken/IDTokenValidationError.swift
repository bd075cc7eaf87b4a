/// Why an ID token was rejected. The token must not be used; sign in again.
public struct IDTokenValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        case malformed(String)
        case algorithmNotAllowed(String)
        case unknownKey(String?)
        case badSignature
        case wrongIssuer(expected: String, found: String)
        case wrongAudience(String)
        case expired
        case issuedInTheFuture
        case nonceMismatch
        case authenticationTooOld
        case keySetUnavailable(Int)
    }

    let code: Code

    static func malformed(_ reason: String) -> Self { .init(code: .malformed(reason)) }
    static func algorithmNotAllowed(_ algorithm: String) -> Self { .init(code: .algorithmNotAllowed(algorithm)) }
    static func unknownKey(_ kid: String?) -> Self { .init(code: .unknownKey(kid)) }
    static let badSignature = Self(code: .badSignature)
    static func wrongIssuer(expected: String, found: String) -> Self { .init(code: .wrongIssuer(expected: expected, found: found)) }
    static func wrongAudience(_ clientID: String) -> Self { .init(code: .wrongAudience(clientID)) }
    static let expired = Self(code: .expired)
    static let issuedInTheFuture = Self(code: .issuedInTheFuture)
    static let nonceMismatch = Self(code: .nonceMismatch)
    static let authenticationTooOld = Self(code: .authenticationTooOld)
    static func keySetUnavailable(status: Int) -> Self { .init(code: .keySetUnavailable(status)) }

    /// Whether the token's signature does not verify.
    public var isSignatureFailure: Bool { code == .badSignature }

    public var description: String {
        switch code {
        case .malformed(let reason): "The ID token is malformed: \(reason)."
        case .algorithmNotAllowed(let algorithm): "The ID token is signed with \(algorithm), which is not allowed."
        case .unknownKey(let kid): "The ID token names a signing key (\(kid ?? "none")) the provider does not publish."
        case .badSignature: "The ID token's signature does not verify."
        case .wrongIssuer(let expected, let found): "The ID token comes from \(found), not \(expected)."
        case .wrongAudience(let clientID): "The ID token is not meant for the client \(clientID)."
        case .expired: "The ID token has expired."
        case .issuedInTheFuture: "The ID token is issued in the future; check the device clock."
        case .nonceMismatch: "The ID token's nonce does not match the sign-in request."
        case .authenticationTooOld: "The sign-in is older than the max_age the request asked for, or the ID token does not say when it was."
        case .keySetUnavailable(let status): "The provider's keys could not be fetched (HTTP \(status))."
        }
    }
}
