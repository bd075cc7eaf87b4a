/// A sign-in sent to another provider, waiting for its answer.
package struct PendingUpstream: Codable, Sendable, Equatable {
    package var providerID: String
    /// The digest of the `state` secret (the flow id is the part before the dot).
    package var stateDigest: String
    package var nonce: String
    /// The PKCE verifier, sealed under the server secret.
    package var sealedVerifier: String

    package init(providerID: String, stateDigest: String, nonce: String, sealedVerifier: String) {
        self.providerID = providerID
        self.stateDigest = stateDigest
        self.nonce = nonce
        self.sealedVerifier = sealedVerifier
    }
}

/// Signing in with another provider: the sign-in sent there, and an identity waiting to be linked.
package struct FederationProgress: Codable, Sendable, Equatable {
    package var pending: PendingUpstream?
    /// The identity to link once the person proves an account.
    package var link: UpstreamProfile?
    /// The account the provider's address named, offered for linking (never shown but by its username).
    package var candidateID: String?
    /// The provider this flow last sent the person to, kept after its answer: a stray second answer names it.
    package var lastProviderID: String?
    /// The nonce an app gives a provider's own sign-in (`idp_token`), where a provider takes tokens from apps: single
    /// use, renewed after every token handed in.
    package var nativeNonce: String?
}
