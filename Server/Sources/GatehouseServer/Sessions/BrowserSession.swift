/// A browser's sign-in session at Gatehouse (single sign-on across clients).
struct BrowserSession: Sendable, Equatable {
    var userID: String
    /// When the user last entered credentials (the ID token's `auth_time`).
    var authTime: Int64
    /// Authentication methods used (the ID token's `amr`), e.g. `["pwd"]`.
    var methods: [String]
    var expiresAt: Int64
}
