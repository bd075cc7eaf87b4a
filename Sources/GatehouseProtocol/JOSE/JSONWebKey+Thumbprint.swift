import Crypto
import Foundation

extension JSONWebKey {
    /// The key's SHA-256 thumbprint (RFC 7638), base64url: what a DPoP-bound token names in `cnf.jkt` (RFC 9449 §6).
    /// `nil` for a key type without a thumbprint here (only RSA, EC and OKP keys have one).
    public var thumbprint: String? {
        // The required members only, in lexicographic order, with no whitespace (RFC 7638 §3.2).
        let members: [(String, String?)]
        switch keyType {
        case "RSA": members = [("e", exponent), ("kty", keyType), ("n", modulus)]
        case "EC": members = [("crv", curve), ("kty", keyType), ("x", x), ("y", y)]
        case "OKP": members = [("crv", curve), ("kty", keyType), ("x", x)]
        default: return nil
        }
        var json = "{"
        for (index, (name, value)) in members.enumerated() {
            guard let value else { return nil }
            json += (index == 0 ? "" : ",") + "\"\(name)\":\"\(Self.escaped(value))\""
        }
        json += "}"
        return Base64URL.encode(Data(SHA256.hash(data: Data(json.utf8))))
    }

    /// JSON string escaping for the members' values (base64url and names need none, but a hostile key might).
    private static func escaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
