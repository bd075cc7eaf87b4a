/// The JSON error body of RFC 6749 §5.2, used by every Gatehouse endpoint that fails.
public struct OAuthErrorResponse: Codable, Sendable, Equatable, Error {
    /// The error code, such as `invalid_grant` or `invalid_client`.
    public var error: String
    /// A human-readable explanation that says what went wrong and, where it can, what to do.
    public var errorDescription: String?

    public init(error: String, errorDescription: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
