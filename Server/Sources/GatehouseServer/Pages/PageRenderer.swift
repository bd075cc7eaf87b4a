import HTTPTypes
import Hummingbird

/// Renders the hosted pages: complete HTML documents that work without JavaScript.
enum PageRenderer {
    /// A page with `title` and already-escaped `body` markup.
    static func page(title: String, body: String, status: HTTPResponse.Status = .ok) -> Response {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title)) · Gatehouse</title>
            <link rel="stylesheet" href="/assets/gatehouse.css">
            </head>
            <body>
            <main class="card">
            \(body)
            </main>
            </body>
            </html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// An error page shown instead of redirecting, when the redirect target cannot be trusted.
    static func error(title: String, message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        page(
            title: title,
            body: """
                <h1>\(HTML.escape(title))</h1>
                <p class="error" role="alert">\(HTML.escape(message))</p>
                """, status: status)
    }
}
