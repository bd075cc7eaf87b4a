import CBOR

/// The authenticator's own record of a ceremony (WebAuthn §6.1): which relying party, what it checked, its
/// counter, and on registration the new credential. It is signed, so every byte is read and none may be left over.
package struct AuthenticatorData: Sendable {
    /// The flags byte.
    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt8

        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: someone touched or otherwise acknowledged the authenticator.
        package static let userPresent = Flags(rawValue: 0x01)
        /// UV: the authenticator verified the user (PIN, biometrics).
        package static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (synced) to other devices.
        package static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        package static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows (registration).
        package static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extensions follow.
        package static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential created by a registration.
    package struct AttestedCredential: Sendable {
        /// The authenticator's model, 16 bytes (all zero when it does not say).
        package let aaguid: [UInt8]
        package let credentialID: [UInt8]
        package let publicKey: COSEKey
    }

    /// All the bytes, as signed.
    package let raw: [UInt8]
    /// SHA-256 of the relying party id the credential is scoped to.
    package let rpIDHash: [UInt8]
    package let flags: Flags
    package let signCount: UInt32
    package let attestedCredential: AttestedCredential?

    /// The longest credential id WebAuthn allows.
    package static let maxCredentialIDLength = 1023

    package init(_ bytes: [UInt8]) throws(WebAuthnError) {
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
