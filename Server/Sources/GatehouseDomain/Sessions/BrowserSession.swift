/// A browser's sign-in session at Gatehouse (single sign-on across clients).
package struct BrowserSession: Sendable, Equatable {
    package var userID: String
    /// When the user last entered credentials (the ID token's `auth_time`).
    package var authTime: Int64
    /// Authentication methods used (the ID token's `amr`), e.g. `["pwd"]`.
    package var methods: [String]
    package var expiresAt: Int64
    /// The session's public id (`sid` in ID tokens and logout tokens): not the secret the cookie holds. `nil` for a
    /// session started before sessions had one.
    package var sid: String? = nil
}
