import Foundation
import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// JSON responses with the headers OAuth requires for anything that may carry a secret.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, cacheable: Bool = false) -> Response {
        data(encode(value), status: status, cacheable: cacheable)
    }

    /// ``make(_:status:cacheable:)`` for the documents of hot paths, written without `JSONEncoder`.
    static func make(_ value: some JSONObjectWritable, status: HTTPResponse.Status = .ok, cacheable: Bool = false) -> Response {
        response(ByteBuffer(bytes: value.jsonBytes), status: status, cacheable: cacheable)
    }

    /// The body ``make(_:status:cacheable:)`` sends, for documents encoded once and sent many times.
    static func encode(_ value: some Encodable) -> Data { JSONDocument.encode(value) }

    /// Already encoded JSON; only public documents may be `cacheable`.
    static func data(_ data: Data, status: HTTPResponse.Status = .ok, cacheable: Bool = false) -> Response {
        response(ByteBuffer(bytes: data), status: status, cacheable: cacheable)
    }

    private static func response(_ body: ByteBuffer, status: HTTPResponse.Status, cacheable: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if cacheable {
            headers[.cacheControl] = "public, max-age=300"
        } else {
            headers[.cacheControl] = "no-store"
            headers[.pragma] = "no-cache"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
