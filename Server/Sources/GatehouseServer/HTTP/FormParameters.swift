import Foundation
import GatehouseProtocol
import Hummingbird
import NIOCore

/// Parameters of a query string or an `application/x-www-form-urlencoded` body.
///
/// OAuth parameters must not repeat (RFC 6749 §3.1), so a repeated name is remembered and reported
/// instead of silently picking one value.
struct FormParameters: Sendable {
    private(set) var values: [String: String] = [:]
    /// Every value of each name, in order (HTML check boxes send one name several times).
    private(set) var allValues: [String: [String]] = [:]
    /// The first name that appeared more than once, if any, but for those that may (``repeatable``).
    private(set) var repeatedName: String?
    /// Names OAuth lets repeat: `resource` (RFC 8707 §2), once per resource; the endpoints say how many they take.
    static let repeatable: Set<String> = ["resource"]

    init(encoded: String) {
        self.init(encodedBytes: Array(encoded.utf8))
    }

    /// Split on bytes: `String.split` walks grapheme clusters, which cost more than the rest of a token request.
    private init(encodedBytes bytes: [UInt8]) {
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = Self.decodeComponent(pair[..<(equals ?? pair.endIndex)]), !name.isEmpty else { continue }
            let value = equals.map { Self.decodeComponent(pair[pair.index(after: $0)...]) ?? "" } ?? ""
            if values[name] != nil, repeatedName == nil, !Self.repeatable.contains(name) { repeatedName = name }
            values[name] = value
            allValues[name, default: []].append(value)
        }
    }

    /// Parameters given as name-value pairs; absent values are left out.
    init(_ pairs: [(String, String?)]) {
        self.init(encoded: FormEncoding.encode(pairs))
    }

    /// The value of `name`; an empty value counts as absent (RFC 6749 §3.1).
    subscript(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// The parameters of a request: its query for GET, its form body for POST.
    static func of(_ request: Request, context: some RequestContext) async throws -> FormParameters {
        if request.method == .post {
            return try await body(of: request)
        }
        return FormParameters(encoded: request.uri.query ?? "")
    }

    static let maximumBodySize = 64 * 1024

    /// Reads a form body of at most 64 KiB.
    static func body(of request: Request) async throws -> FormParameters {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            throw HTTPError(.unsupportedMediaType, message: "Send the parameters as application/x-www-form-urlencoded.")
        }
        return FormParameters(encodedBytes: Array(try await collectBody(of: request).readableBytesView))
    }

    /// A request body of at most ``maximumBodySize`` bytes; a larger one is a 413.
    static func collectBody(of request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "The request body is larger than \(maximumBodySize / 1024) KiB.")
        }
    }

    /// Undoes form encoding: `+` is a space, `%XX` a byte; `nil` for a broken escape or bytes that are not UTF-8.
    /// Done on bytes: Foundation's string replacement and percent decoding cost more than the rest of a token request.
    static func decodeComponent(_ text: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
