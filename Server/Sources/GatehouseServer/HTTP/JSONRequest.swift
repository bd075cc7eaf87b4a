import Foundation
import GatehouseDomain
import Hummingbird

/// Reads JSON request bodies, answering a wrong content type with 415 and a body that does not decode with an
/// `invalid_request` that names the missing or mistyped field.
enum JSONRequest {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        try decode(T.self, from: try await body(of: request))
    }

    /// A body of a type that knows every member it may have (an admin write): a member it does not know is refused,
    /// named, rather than dropped — an operator who sent one believes the setting took effect.
    static func decode<T: ClosedJSONBody>(_ type: T.Type, from request: Request) async throws -> T {
        let data = try await body(of: request)
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            let known = Set(T.Members.allCases.map(\.stringValue))
            let unknown = object.keys.filter { !known.contains($0) }.sorted()
            if !unknown.isEmpty {
                throw OAuthError.invalidRequest(
                    "The request body has \(unknown.count == 1 ? "a member" : "members") \(T.self) does not know: \(unknown.joined(separator: ", ")). "
                        + "The members are \(known.sorted().joined(separator: ", ")).")
            }
        }
        return try decode(T.self, from: data)
    }

    /// A body that may be left out: `nil` without one (no content type, nothing sent).
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T? {
        guard request.headers[.contentType] != nil else { return nil }
        let data = try await body(of: request)
        return data.isEmpty ? nil : try decode(T.self, from: data)
    }

    private static func body(of request: Request) async throws -> Data {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw HTTPError(.unsupportedMediaType, message: "Send the request body as application/json.")
        }
        return Data(buffer: try await FormParameters.collectBody(of: request))
    }

    private static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
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

/// A JSON request body whose members are exactly its coding keys (see ``JSONRequest``).
protocol ClosedJSONBody: Decodable {
    associatedtype Members: CodingKey & CaseIterable
}
