import GatehouseProtocol

/// Content to show as a QR code, such as the `otpauth://` URI an authenticator app scans when a user
/// enrolls TOTP; nothing to enter. Render ``content`` with your platform's QR generator (Core Image's
/// `CIQRCodeGenerator` on Apple platforms) and show it as text too, for people who cannot scan.
public struct QRCodeCollector: Sendable {
    /// The QR code field, as the server sent it.
    public let field: FlowField
    /// What the QR code encodes.
    public var content: String { field.defaultValue ?? "" }
    /// The caption, e.g. "Scan this with your authenticator app".
    public var label: String { field.label }
}
