/// The JSON error body of RFC 6749 §5.2, used by every Gatehouse endpoint that fails.
public struct OAuthErrorResponse: Codable, Sendable, Equatable, Error {
    /// The error code, such as `invalid_grant` or `invalid_client`.
    public var error: String
    /// A human-readable explanation that says what went wrong and, where it can, what to do.
    public var errorDescription: String?
    /// For a wrong PIN or code: how many more wrong ones are allowed before the credential is blocked.
    public var attemptsRemaining: Int?

    /// An error body with the code `error`.
    public init(error: String, errorDescription: String? = nil, attemptsRemaining: Int? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.attemptsRemaining = attemptsRemaining
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case attemptsRemaining = "attempts_remaining"
    }
}
