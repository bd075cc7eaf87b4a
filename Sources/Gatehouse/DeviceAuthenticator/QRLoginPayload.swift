import Foundation

/// What a Gatehouse sign-in QR code carries: the service URL and the access code, as `https://id.example.com/authenticator#CODE`.
public struct QRLoginPayload: Sendable, Equatable {
    /// Where the service describes itself (``DeviceAuthenticator/service(at:)``).
    public var serviceURL: URL
    /// The single-use code that names the browser's sign-in.
    public var accessCode: String

    /// Reads a scanned (or typed) payload.
    /// - Throws: ``DeviceAuthenticatorError/notAGatehouseCode`` for anything that is not a Gatehouse sign-in code.
    public init(parsing text: String) throws(DeviceAuthenticatorError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let hash = trimmed.lastIndex(of: "#"),
            let url = URL(string: String(trimmed[..<hash])), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil, url.query == nil, url.path.hasSuffix("/authenticator")
        else { throw .notAGatehouseCode }
        let code = String(trimmed[trimmed.index(after: hash)...])
        // The server's access codes are 128-bit base64url: at least 22 characters of that alphabet.
        guard (22...128).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .notAGatehouseCode
        }
        serviceURL = url
        accessCode = code
    }

    /// The payload for `accessCode` at `serviceURL`.
    public init(serviceURL: URL, accessCode: String) {
        self.serviceURL = serviceURL
        self.accessCode = accessCode
    }

    /// The text a QR code carries.
    public var text: String { serviceURL.absoluteString + "#" + accessCode }
}
