/// Why the URL a browser came back with was not accepted (``GatehouseError/browserRedirect(_:)``).
public enum BrowserRedirectError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The provider refused the request and said why (RFC 6749 §4.1.2.1): `access_denied` when the person said no,
    /// `login_required` or `consent_required` after `prompt=none`, `invalid_request`, ….
    case refused(error: String, description: String?)
    /// The answer's `state` is not the one this sign-in sent: it belongs to another request (or a forged one) and was
    /// ignored (RFC 6749 §10.12).
    case stateMismatch
    /// The answer names another issuer (`iss`, RFC 9207), or none though the provider promises to: it may come from a
    /// different provider the browser was sent to (a mix-up attack), so it was ignored.
    case issuerMismatch(expected: String, found: String?)
    /// The answer carries neither a code nor an error.
    case missingCode

    /// The OAuth error code of a refusal, such as `access_denied`.
    public var oauthError: String? {
        if case .refused(let error, _) = self { return error }
        return nil
    }

    /// What happened, in English: for logs.
    public var description: String { localizedDescription(in: ["en"]) }

    /// What happened, in the first of `languages` the SDK speaks, else English: for the person using the app.
    public func localizedDescription(in languages: [String]) -> String {
        func say(_ key: String, _ arguments: String...) -> String { StringCatalog.text(key, arguments, languages: languages) }
        return switch self {
        case .refused(let error, let description): say("redirect.refused", error, description.map { ": \($0)" } ?? "")
        case .stateMismatch: say("redirect.state_mismatch")
        case .issuerMismatch(let expected, let found): say("redirect.issuer_mismatch", found ?? say("redirect.unnamed_issuer"), expected)
        case .missingCode: say("redirect.missing_code")
        }
    }
}
