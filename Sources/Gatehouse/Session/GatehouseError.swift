/// What went wrong talking to the provider, and what the app should do about it.
public struct GatehouseError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        case signedOut
        case provider(status: Int, error: String, description: String?)
        case unexpectedResponse(status: Int)
    }

    let code: Code

    /// The session ended at the provider; compare with `==` or check ``requiresSignIn``.
    public static let signedOut = GatehouseError(code: .signedOut)
    static func provider(status: Int, error: String, description: String?) -> Self { .init(code: .provider(status: status, error: error, description: description)) }
    static func unexpectedResponse(status: Int) -> Self { .init(code: .unexpectedResponse(status: status)) }

    /// The session ended at the provider (revoked, expired, or the refresh token was replayed): sign in again.
    public var requiresSignIn: Bool { code == .signedOut }

    /// The OAuth error code the provider answered with, if any.
    public var oauthError: String? {
        if case .provider(_, let error, _) = code { return error }
        return nil
    }

    public var description: String {
        switch code {
        case .signedOut: "The session has ended; sign in again."
        case .provider(let status, let error, let description): "The provider answered HTTP \(status) \(error)\(description.map { ": \($0)" } ?? "")."
        case .unexpectedResponse(let status): "The provider answered HTTP \(status) with an unexpected body."
        }
    }
}
