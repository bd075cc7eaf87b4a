import Crypto
import Foundation
import GatehouseProtocol

/// HOTP (RFC 4226) and TOTP (RFC 6238): codes from a shared secret and a counter, or the current time step.
public struct OneTimePassword: Sendable, Equatable {
    /// The HMAC hash; authenticator apps all support SHA-1, the RFC 6238 default.
    public enum Algorithm: String, Sendable, Codable, CaseIterable {
        case sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512"
    }

    /// The shared secret (20 random bytes when Gatehouse makes one).
    public let secret: [UInt8]
    /// The HMAC hash codes are made with.
    public var algorithm: Algorithm = .sha1
    /// Digits per code.
    public var digits = 6
    /// Seconds per time step.
    public var period: Int64 = 30

    /// A generator for `secret` with the given parameters (the defaults are what authenticator apps assume).
    public init(secret: [UInt8], algorithm: Algorithm = .sha1, digits: Int = 6, period: Int64 = 30) {
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    /// The HOTP value for `counter`, zero-padded to ``digits``.
    public func code(counter: UInt64) -> String {
        let key = SymmetricKey(data: secret)
        let message = withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        let mac: [UInt8] =
            switch algorithm {
            case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        // Dynamic truncation (RFC 4226 §5.3).
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The time step `time` (Unix seconds) falls in.
    public func step(at time: Int64) -> Int64 { time / period }

    /// The TOTP value at `time`.
    public func code(at time: Int64) -> String { code(counter: UInt64(step(at: time))) }

    /// The time step within `window` steps either side of `time` whose code is `candidate`, or `nil`.
    /// Every step in the window is compared, in constant time, so timing does not say which matched.
    public func matchingStep(for candidate: String, at time: Int64, window: Int64 = 1) -> Int64? {
        let now = step(at: time)
        var match: Int64?
        for step in (now - window)...(now + window) where step >= 0 {
            if ConstantTime.equals(code(counter: UInt64(step)), candidate), match == nil { match = step }
        }
        return match
    }

    /// The `otpauth://totp/` URI authenticator apps read (from a QR code or pasted).
    public func provisioningURI(issuer: String, account: String) -> String {
        let label = FormEncoding.encode(issuer) + ":" + FormEncoding.encode(account)
        let query: [(String, String?)] = [
            ("secret", Base32.encode(secret)), ("issuer", issuer), ("algorithm", algorithm.rawValue),
            ("digits", String(digits)), ("period", String(period)),
        ]
        return "otpauth://totp/\(label)?" + FormEncoding.encode(query)
    }
}
