/// Why a QR code could not be made.
public struct QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong and what to do about it.
    public let description: String

    /// The text does not fit in the largest symbol (version 40) at the requested error-correction level.
    static func tooLong(bytes: Int, level: ErrorCorrectionLevel) -> QRCodeError {
        QRCodeError(description: "\(bytes) bytes do not fit in a QR code at error-correction level \(level); shorten the text or lower the level.")
    }
}
