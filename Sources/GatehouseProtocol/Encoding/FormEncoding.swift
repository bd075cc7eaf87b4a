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
}
