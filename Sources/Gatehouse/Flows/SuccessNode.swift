/// The flow signed the user in: the code was exchanged with PKCE, the ID token validated and the tokens stored.
public struct SuccessNode: Sendable {
    /// The signed-in user.
    public let user: UserSession
    /// Who signed in, from the validated ID token.
    public let claims: IDTokenClaims
}
