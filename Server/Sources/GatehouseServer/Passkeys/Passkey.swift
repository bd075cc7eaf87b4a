import Foundation

/// A passkey a user registered: the credential's public key and what the authenticator said about it.
struct Passkey: Sendable {
    /// Gatehouse's id for the passkey, for renaming and removing it.
    let id: String
    let userID: String
    /// The credential id the authenticator chose.
    let credentialID: [UInt8]
    let publicKey: COSEKey
    /// The authenticator's signature counter at the last use; 0 when it does not count.
    let signCount: UInt32
    /// The authenticator model (AAGUID) in hex; all zeros when it does not say.
    let aaguid: String
    /// Whether the authenticator has verified the user (PIN, biometrics) at least once with this passkey.
    let userVerified: Bool
    /// Whether the passkey may be synced to the user's other devices (BE), and is now (BS).
    let backupEligible: Bool
    let backedUp: Bool
    /// `none`, `self` or `basic`: what the registration's attestation proved.
    let attestation: String
    /// How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, …), as it reported at registration.
    let transports: [String]
    /// The name the user sees, e.g. "MacBook" or "YubiKey 5".
    let name: String
    let createdAt: Int64
    let lastUsedAt: Int64?

    /// The ID token's `amr` values (RFC 8176) for a sign-in with this passkey: `hwk` for a key that stays on its
    /// device, `swk` for one that may be synced (backup eligible), and `user` when the authenticator verified the user.
    func methodReferences(userVerified: Bool) -> [String] {
        [backupEligible ? "swk" : "hwk"] + (userVerified ? ["user"] : [])
    }

    /// What an assertion check needs.
    var stored: RelyingParty.StoredCredential {
        RelyingParty.StoredCredential(id: credentialID, publicKey: publicKey, signCount: signCount, backupEligible: backupEligible)
    }
}
