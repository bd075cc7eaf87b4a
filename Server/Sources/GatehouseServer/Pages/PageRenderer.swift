import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// Renders the hosted pages: complete HTML documents that work without JavaScript.
enum PageRenderer {
    /// A page with `title` around `body`, markup a template rendered (``Templates``), never text built by hand, in
    /// `wording`'s language (`lang`, `dir`).
    static func page(title: String, body: String, status: HTTPResponse.Status = .ok, wording: Wording = .english) -> Response {
        var values = wording.pageValues
        values["title"] = title
        values["content"] = body
        let html = Templates.render("layout", values)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The template `name` rendered with `values` as a page with `title`; the template reads `wording`'s texts as
    /// `{{t.…}}`.
    static func page(title: String, template name: String, _ values: [String: Any], status: HTTPResponse.Status = .ok, wording: Wording = .english) -> Response
    {
        page(title: title, body: Templates.render(name, values.merging(wording.pageValues) { own, _ in own }), status: status, wording: wording)
    }

    /// An error page shown instead of redirecting, when the redirect target cannot be trusted.
    static func error(title: String, message: String, status: HTTPResponse.Status = .badRequest, wording: Wording = .english) -> Response {
        page(title: title, template: "error", ["title": title, "message": message], status: status, wording: wording)
    }

    /// An error page titled and worded by the catalog messages `title` and `message` (given `arguments`).
    static func error(
        _ title: String, _ message: String, _ arguments: [String: String] = [:], status: HTTPResponse.Status = .badRequest, wording: Wording
    ) -> Response {
        error(title: wording(title).text, message: wording(message, arguments).text, status: status, wording: wording)
    }
}
