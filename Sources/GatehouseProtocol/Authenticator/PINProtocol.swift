import Foundation

/// The fixed parts of Gatehouse's PIN protocol (`gatehouse-pin-v1`), shared by the server and the SDK.
///
/// The PIN itself never leaves the device: the device sends an RFC 9497 VOPRF(P-384, SHA-384) blinding of
/// ``oprfInput(pin:identityID:)``, the server evaluates it with the identity's own key (counting the attempt),
/// and the device derives from the result the key that opens its signing key. What the server finally checks is
/// an ECDSA P-256 signature over ``approvalMessage(sessionID:challenge:)``. See the SDK's "Device authenticator protocol" article.
public enum PINProtocol {
    /// The protocol name in the service description.
    public static let version = "gatehouse-pin-v1"
    /// The header an authenticator app names itself and its version in: `Gatehouse-App: name/1.2.3`.
    public static let appHeader = "Gatehouse-App"
    /// PIN lengths a service may choose.
    public static let pinLengths = 4...6

    /// The OPRF input for `pin` on identity `identityID`: the same PIN on two identities gives unrelated outputs.
    public static func oprfInput(pin: String, identityID: String) -> Data {
        Data("\(version)|pin|\(identityID)|\(pin)".utf8)
    }

    /// What the device signs to approve session `sessionID` after the PIN evaluation that issued `challenge`.
    public static func approvalMessage(sessionID: String, challenge: String) -> Data {
        Data("\(version)|approve|\(sessionID)|\(challenge)".utf8)
    }

    /// Whether `pin` has the form a service with `length`-digit PINs accepts.
    public static func isWellFormed(_ pin: String, length: Int) -> Bool {
        pin.count == length && pin.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
