import Foundation

/// A passkey a user registered: the credential's public key and what the authenticator said about it.
public struct Passkey: Sendable {
    /// Gatehouse's id for the passkey, for renaming and removing it.
    public let id: String
    public let userID: String
    /// The credential id the authenticator chose.
    public let credentialID: [UInt8]
    package let publicKey: COSEKey
    /// The authenticator's signature counter at the last use; 0 when it does not count.
    public let signCount: UInt32
    /// The authenticator model (AAGUID) in hex; all zeros when it does not say.
    public let aaguid: String
    /// Whether the authenticator has verified the user (PIN, biometrics) at least once with this passkey.
    public let userVerified: Bool
    /// Whether the passkey may be synced to the user's other devices (BE), and is now (BS).
    public let backupEligible: Bool
    public let backedUp: Bool
    /// `none`, `self` or `basic`: what the registration's attestation proved.
    public let attestation: String
    /// How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, …), as it reported at registration.
    public let transports: [String]
    /// The name the user sees, e.g. "MacBook" or "YubiKey 5".
    public let name: String
    public let createdAt: Int64
    public let lastUsedAt: Int64?

    /// The ID token's `amr` values (RFC 8176) for a sign-in with this passkey: `hwk` for a key that stays on its
    /// device, `swk` for one that may be synced (backup eligible), and `user` when the authenticator verified the user.
    package func methodReferences(userVerified: Bool) -> [String] {
        [backupEligible ? "swk" : "hwk"] + (userVerified ? ["user"] : [])
    }

    /// What an assertion check needs.
    package var stored: RelyingParty.StoredCredential {
        RelyingParty.StoredCredential(id: credentialID, publicKey: publicKey, signCount: signCount, backupEligible: backupEligible)
    }
}
