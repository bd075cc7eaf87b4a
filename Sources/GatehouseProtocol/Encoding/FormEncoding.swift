import Foundation

/// `application/x-www-form-urlencoded` and query encoding with only RFC 3986 unreserved characters left
/// as they are, so every OAuth parameter survives any parser.
public enum FormEncoding {
    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// One value, percent-encoded.
    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `name=value&…` for the pairs whose value is present, in order.
    public static func encode(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { name, value in value.map { "\(encode(name))=\(encode($0))" } }.joined(separator: "&")
    }

    /// The pairs of a query or form body (`a=1&b=x+y`), `+` read as a space and percent-escapes decoded, in order;
    /// a pair whose escapes do not decode is left out.
    public static func decode(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decoded(parts[0]), !name.isEmpty, let value = decoded(parts.count > 1 ? parts[1] : "") else { return nil }
            return (name, value)
        }
    }
}
