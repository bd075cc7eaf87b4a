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

    /// The stylesheet every page links; served from our own origin so the CSP can forbid inline styles.
    static let stylesheet = """
        :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
        body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; }
        .card { width: min(30rem, 92vw); padding: 2rem; border: 1px solid #8884; border-radius: 12px; }
        h1 { font-size: 1.4rem; margin-top: 0; }
        label { display: block; margin: 1rem 0 .3rem; font-weight: 600; }
        input[type=text], input[type=password], input[type=tel] { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem;
            border: 1px solid #888; border-radius: 6px; }
        button { margin-top: 1.4rem; width: 100%; padding: .7rem; font-size: 1rem; border: 0; border-radius: 6px;
            background: #2456c7; color: white; cursor: pointer; }
        fieldset { border: 0; padding: 0; margin: 1rem 0 0; }
        legend { font-weight: 600; margin-bottom: .3rem; }
        label.choice { font-weight: normal; margin: .3rem 0; }
        button.link { background: none; color: #2456c7; text-decoration: underline; margin-top: .6rem; }
        button.secondary { background: #e8ecf5; color: #1d2b4a; margin-top: .6rem; }
        figure.qr { margin: 1rem 0; text-align: center; }
        figure.qr svg { width: 220px; height: 220px; }
        figure.qr figcaption { color: #555; font-size: .9rem; }
        .field-error { margin: .3rem 0 0; padding: .3rem .6rem; }
        .error { color: #b3261e; background: #b3261e18; padding: .6rem; border-radius: 6px; }
        .hint { color: #666; font-size: .9rem; }
        pre { white-space: pre-wrap; word-break: break-all; background: #8881; padding: .8rem; border-radius: 6px; font-size: .85rem; }
        a.button { display: block; text-align: center; margin-top: 1rem; padding: .7rem; border-radius: 6px;
            background: #2456c7; color: white; text-decoration: none; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        td, th { text-align: left; padding: .3rem; border-bottom: 1px solid #8883; vertical-align: top; word-break: break-all; }
        """
}
