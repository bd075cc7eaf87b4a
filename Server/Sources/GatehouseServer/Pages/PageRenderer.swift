import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// Renders the hosted pages: complete HTML documents that work without JavaScript.
enum PageRenderer {
    /// A page with `title` around `body`, markup a template rendered (``Templates``), never text built by hand.
    static func page(title: String, body: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = Templates.render("layout", ["title": title, "content": body])
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The template `name` rendered with `values` as a page with `title`.
    static func page(title: String, template name: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        page(title: title, body: Templates.render(name, values), status: status)
    }

    /// An error page shown instead of redirecting, when the redirect target cannot be trusted.
    static func error(title: String, message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        page(title: title, template: "error", ["title": title, "message": message], status: status)
    }
}
