import HTTPTypes

extension HTTPField.Name {
    /// The DPoP proof a request carries (RFC 9449 §4.1).
    static let dpop = HTTPField.Name("DPoP")!
    /// The nonce a server asks DPoP proofs to carry (RFC 9449 §8).
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
