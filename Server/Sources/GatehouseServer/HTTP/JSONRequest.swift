import Foundation
import Hummingbird

/// Reads JSON request bodies, answering a wrong content type with 415 and a body that does not decode with an
/// `invalid_request` that names the missing or mistyped field.
enum JSONRequest {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw HTTPError(.unsupportedMediaType, message: "Send the request body as application/json.")
        }
        let buffer = try await FormParameters.collectBody(of: request)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch {
            throw OAuthError.invalidRequest("The request body is not a valid \(T.self): \(explain(error)).")
        }
    }

    private static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        switch error {
        case .keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON" : "\(path) has the wrong type"
        @unknown default: return "not JSON"
        }
    }
}
