import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// Redirect responses, with parameters added to the target's query.
enum Redirect {
    /// `uri` with `parameters` appended to its query, percent-encoded strictly.
    static func url(_ uri: String, adding parameters: [(String, String?)]) -> String {
        let query = FormEncoding.encode(parameters)
        guard !query.isEmpty else { return uri }
        let separator = uri.contains("?") ? (uri.hasSuffix("?") || uri.hasSuffix("&") ? "" : "&") : "?"
        return uri + separator + query
    }

    /// 302 for GET requests, 303 after a form POST so the browser follows with GET.
    static func to(_ location: String, afterPost: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: afterPost ? .seeOther : .found, headers: headers)
    }
}
