import HTTPTypes
import Hummingbird

/// The hosted sign-in form.
///
/// Labelled fields with `autocomplete` hints so password managers fill them, a hidden CSRF token, and an
/// error message that never tells whether the account exists.
enum LoginPage {
    static func render(requestID: String, csrfToken: String, clientName: String, username: String?, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        let errorMarkup = error.map { #"<p class="error" role="alert" id="login-error">\#(HTML.escape($0))</p>"# } ?? ""
        let body = """
            <h1>Sign in</h1>
            <p class="hint">to continue to <strong>\(HTML.escape(clientName))</strong></p>
            \(errorMarkup)
            <form method="post" action="/login">
            <input type="hidden" name="request" value="\(HTML.escape(requestID))">
            <input type="hidden" name="csrf_token" value="\(HTML.escape(csrfToken))">
            <label for="username">Username</label>
            <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(HTML.escape(username ?? ""))"\(username == nil ? " autofocus" : "")>
            <label for="password">Password</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required\(username == nil ? "" : " autofocus")>
            <button type="submit">Sign in</button>
            </form>
            """
        return PageRenderer.page(title: "Sign in", body: body, status: status)
    }
}
