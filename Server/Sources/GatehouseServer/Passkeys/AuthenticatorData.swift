import CBOR

/// The authenticator's own record of a ceremony (WebAuthn §6.1): which relying party, what it checked, its
/// counter, and on registration the new credential. It is signed, so every byte is read and none may be left over.
struct AuthenticatorData: Sendable {
    /// The flags byte.
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        /// UP: someone touched or otherwise acknowledged the authenticator.
        static let userPresent = Flags(rawValue: 0x01)
        /// UV: the authenticator verified the user (PIN, biometrics).
        static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (synced) to other devices.
        static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows (registration).
        static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extensions follow.
        static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential created by a registration.
    struct AttestedCredential: Sendable {
        /// The authenticator's model, 16 bytes (all zero when it does not say).
        let aaguid: [UInt8]
        let credentialID: [UInt8]
        let publicKey: COSEKey
    }

    /// All the bytes, as signed.
    let raw: [UInt8]
    /// SHA-256 of the relying party id the credential is scoped to.
    let rpIDHash: [UInt8]
    let flags: Flags
    let signCount: UInt32
    let attestedCredential: AttestedCredential?

    /// The longest credential id WebAuthn allows.
    static let maxCredentialIDLength = 1023

    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("the authenticator data is \(bytes.count) bytes, shorter than 37") }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        let decoder = CBORDecoder()
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .malformed("the attested credential data is cut short") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length <= Self.maxCredentialIDLength else { throw .malformed("the credential id is longer than 1023 bytes") }
            guard bytes.count >= offset + length else { throw .malformed("the credential id is cut short") }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let decoded: (CBOR, end: Int)
            do { decoded = try decoder.decodePrefix(bytes, from: offset) } catch { throw .invalidCBOR(error) }
            let publicKey = try COSEKey(decoded.0, encoded: Array(bytes[offset..<decoded.end]))
            offset = decoded.end
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: publicKey)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            let decoded: (CBOR, end: Int)
            do { decoded = try decoder.decodePrefix(bytes, from: offset) } catch { throw .invalidCBOR(error) }
            guard decoded.0.map != nil else { throw .malformed("the authenticator extensions are not a map") }
            offset = decoded.end
        }
        guard offset == bytes.count else { throw .invalidCBOR(.trailingBytes(offset: offset)) }
    }
}
