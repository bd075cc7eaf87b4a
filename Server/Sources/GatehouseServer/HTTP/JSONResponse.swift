import Foundation
import HTTPTypes
import Hummingbird

/// JSON responses with the headers OAuth requires for anything that may carry a secret.
enum JSONResponse {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, cacheable: Bool = false) -> Response {
        data((try? encoder.encode(value)) ?? Data(#"{"error":"server_error"}"#.utf8), status: status, cacheable: cacheable)
    }

    /// Encodes a JSON object given as a dictionary (for claims whose set depends on scopes).
    static func object(_ object: [String: any Sendable], status: HTTPResponse.Status = .ok) -> Response {
        data((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8), status: status)
    }

    /// Already encoded JSON; only public documents may be `cacheable`.
    static func data(_ data: Data, status: HTTPResponse.Status = .ok, cacheable: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if cacheable {
            headers[.cacheControl] = "public, max-age=300"
        } else {
            headers[.cacheControl] = "no-store"
            headers[.pragma] = "no-cache"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
