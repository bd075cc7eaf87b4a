import HTTPTypes

/// The credentials of an `Authorization` header for one scheme (RFC 9110 §11.4): the scheme is matched without
/// regard to case, the credentials follow one or more spaces, and surrounding blanks are dropped.
///
/// Read on the header's bytes: this runs on every userinfo, token and authenticator request.
enum AuthorizationCredentials {
    /// The credentials sent with `scheme` (`"Bearer"`, `"Basic"`), `nil` when the header is absent or names
    /// another scheme, and an empty string when the scheme came without credentials.
    static func of(_ scheme: String, in headers: HTTPFields) -> String? {
        guard let header = headers[.authorization] else { return nil }
        return of(scheme, in: header)
    }

    /// ``of(_:in:)`` for a header value already read.
    static func of(_ scheme: String, in header: String) -> String? {
        let bytes = Array(header.utf8)
        let name = Array(scheme.utf8)
        var index = 0
        while index < bytes.count, isBlank(bytes[index]) { index += 1 }
        guard bytes.count - index >= name.count else { return nil }
        for expected in name {
            guard lowercased(bytes[index]) == lowercased(expected) else { return nil }
            index += 1
        }
        if index == bytes.count { return "" }
        guard isBlank(bytes[index]) else { return nil }  // "Bearerx" is another scheme
        while index < bytes.count, isBlank(bytes[index]) { index += 1 }
        var end = bytes.count
        while end > index, isBlank(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
