import Foundation

/// The system browser and a ``LoopbackRedirectListener``: the user agent for macOS and Linux apps and command-line
/// tools (RFC 8252 §7.3). The client registers `http://127.0.0.1/callback` (the path of its configured redirect URI
/// when that is a loopback one); each sign-in listens on a new port.
///
/// ```swift
/// let user = try await gatehouse.signInWithBrowser(using: LoopbackUserAgent.systemBrowser())
/// ```
public struct LoopbackUserAgent: BrowserUserAgent {
    /// How long to wait for the browser to come back, in seconds.
    public var timeout: TimeInterval
    private let open: @Sendable (URL) async throws -> Void

    /// A user agent that hands each page's URL to `open` (show it, print it, start a browser) and waits up to
    /// `timeout` seconds for the browser to come back.
    public init(timeout: TimeInterval = 300, open: @escaping @Sendable (URL) async throws -> Void) {
        self.timeout = timeout
        self.open = open
    }

    public func present(_ page: BrowserPage) async throws -> BrowserRedirect {
        let listener = try LoopbackRedirectListener()
        let path = Self.path(of: page.registeredRedirectURI)
        let redirectURI = listener.redirectURI(path: path)
        try await open(try await page.url(redirectURI: redirectURI))
        let languages = page.preferredLanguages
        let message =
            switch page.purpose {
            case .signIn: StringCatalog.text("browser.signed_in", languages: languages)
            case .signOut: StringCatalog.text("browser.signed_out", languages: languages)
            }
        // Every message of the catalog is in the same languages: the page's `lang` is the one either is found in.
        let url = try await listener.wait(
            path: path, timeout: timeout, message: message, language: StringCatalog.language(of: "browser.signed_in", languages: languages))
        return BrowserRedirect(url: url, redirectURI: redirectURI)
    }

    /// The path of a registered loopback redirect URI (`http://127.0.0.1/callback` → `/callback`), `/callback` for
    /// any other.
    static func path(of registered: String) -> String {
        guard let components = URLComponents(string: registered), components.scheme == "http",
            ["127.0.0.1", "localhost", "::1", "[::1]"].contains(components.host ?? ""), !components.path.isEmpty
        else { return "/callback" }
        return components.path
    }

    #if os(macOS) || os(Linux)
    /// A user agent that opens each page in the desktop's browser (`open` on macOS, `xdg-open` on Linux); where there is
    /// no such command, `fallback` gets the URL (print it for the person to open).
    public static func systemBrowser(timeout: TimeInterval = 300, fallback: @escaping @Sendable (URL) -> Void = { _ in }) -> LoopbackUserAgent {
        LoopbackUserAgent(timeout: timeout) { url in
            if !openInSystemBrowser(url) { fallback(url) }
        }
    }

    /// Opens `url` with the desktop's browser; `false` when there is no command for it or it could not start.
    @discardableResult
    public static func openInSystemBrowser(_ url: URL) -> Bool {
        for opener in ["/usr/bin/open", "/usr/bin/xdg-open", "/usr/local/bin/xdg-open"] where FileManager.default.isExecutableFile(atPath: opener) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [url.absoluteString]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                return true
            } catch {
                continue
            }
        }
        return false
    }
    #endif
}
