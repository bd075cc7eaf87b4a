import Foundation

/// Where the person is signed in (`GET /account/v1/sessions`): browsers, and applications holding tokens.
public struct AccountSessions: Sendable, Equatable, Codable {
    /// A browser signed in on the hosted pages.
    public struct BrowserSession: Sendable, Equatable, Codable {
        /// The session's handle, for ``AccountClient/endSession(id:)``.
        public var id: String
        /// How the browser signed in (`amr` values).
        public var methods: [String]
        /// When the browser signed in.
        public var authenticatedAt: Date
        /// When the browser was last seen.
        public var lastSeenAt: Date
        /// When the session ends unless used.
        public var expiresAt: Date
        /// The client address it signed in from, when known.
        public var address: String?
        /// How the browser named itself (`User-Agent`) when it signed in, when known.
        public var userAgent: String?

        enum CodingKeys: String, CodingKey {
            case id, methods, address
            case userAgent = "user_agent"
            case authenticatedAt = "authenticated_at"
            case lastSeenAt = "last_seen_at"
            case expiresAt = "expires_at"
        }
    }

    /// An application's sign-in: the tokens one authorization issued.
    public struct AppSignIn: Sendable, Equatable, Codable {
        /// The sign-in's id.
        public var id: String
        /// The application's client id.
        public var clientID: String
        /// What the application may do.
        public var scopes: [String]
        /// Whether it holds a refresh token, and so stays signed in.
        public var refreshable: Bool
        /// When the person signed in for it.
        public var authenticatedAt: Date?
        /// When it last got a token.
        public var lastIssuedAt: Date
        /// When its last token (or its refresh token) expires.
        public var expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case id, scopes, refreshable
            case clientID = "client_id"
            case authenticatedAt = "authenticated_at"
            case lastIssuedAt = "last_issued_at"
            case expiresAt = "expires_at"
        }
    }

    /// The browsers signed in on the hosted pages.
    public var browserSessions: [BrowserSession]
    /// The applications holding tokens.
    public var appSignIns: [AppSignIn]

    enum CodingKeys: String, CodingKey {
        case browserSessions = "browser_sessions"
        case appSignIns = "app_sign_ins"
    }
}
