import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1) taken apart: its header and payload as JSON objects, its signature,
/// and the input the signature covers. Nothing is trusted yet: check the signature with ``JSONWebSignature``.
public struct CompactJWS: @unchecked Sendable {
    // The JSON objects hold only JSONSerialization's immutable values (strings, numbers, arrays, dictionaries, null).
    /// The protected header.
    public let header: [String: Any]
    /// The payload, when it is a JSON object (a JWT's claims).
    public let payload: [String: Any]
    /// The signature's bytes.
    public let signature: Data
    /// `BASE64URL(header) "." BASE64URL(payload)`: what the signature signs.
    public let signingInput: Data

    /// `token` taken apart, or `nil` when it is not three base64url parts with a JSON object header and payload.
    public init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any], let payloadData = Base64URL.decode(String(parts[1])),
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any], let signature = Base64URL.decode(String(parts[2]))
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data((parts[0] + "." + parts[1]).utf8)
    }

    /// The header's `alg`; `none` when absent (and never accepted).
    public var algorithm: String { header["alg"] as? String ?? "none" }

    /// Whether `key` signed it with its ``algorithm``.
    /// - Throws: ``JSONWebSignature/KeyError`` when the algorithm is unknown or the key does not fit it.
    public func isSigned(by key: JSONWebKey) throws(JSONWebSignature.KeyError) -> Bool {
        try JSONWebSignature.isValid(signature, of: signingInput, with: key, algorithm: algorithm)
    }
}
