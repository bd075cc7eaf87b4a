import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a browser's redirect comes back to an app without a URL scheme of its own (RFC 8252 §7.3): a port the system
/// gives on 127.0.0.1, listening for one request to a path. The provider must match the registered redirect URI
/// (`http://127.0.0.1/callback`) on any port, as RFC 8252 §8.3 asks; Gatehouse does.
///
/// Only the loopback interface is bound, so nothing off the machine can reach it. Another program on the same machine
/// could still call it first: ``GatehouseClient/signInWithBrowser(using:options:)`` accepts an answer only with its request's `state` and the provider's `iss`.
public final class LoopbackRedirectListener: @unchecked Sendable {
    /// The port the system gave.
    public let port: Int
    private let socketDescriptor: Int32
    // Guards `closed` and `cancelled`, which the waiting thread and the caller share.
    private let lock = NSLock()
    private var closed = false
    private var cancelled = false

    /// Listens on a port the system chooses on 127.0.0.1.
    /// - Throws: ``GatehouseError/userAgent(_:)`` when no socket can be opened.
    public init() throws(GatehouseError) {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw .userAgent("cannot open a socket for the browser's answer") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw .userAgent("cannot listen on 127.0.0.1 for the browser's answer")
        }
        socketDescriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        stop()
    }

    /// The redirect URI for this listener: `http://127.0.0.1:<port><path>`.
    public func redirectURI(path: String = "/callback") -> String {
        "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)"
    }

    /// Waits up to `timeout` seconds for the browser to arrive at `path`, answers it with a short page saying
    /// `message` (in `language`, a BCP 47 tag), and returns the URL it came to. Other requests (a favicon) get a 404 and the wait goes on. The
    /// listener is closed afterwards; cancelling the task stops the wait.
    ///
    /// - Throws: ``GatehouseError/userAgent(_:)`` when nothing came in time, ``GatehouseError/cancelled`` when the
    ///   task was cancelled.
    public func wait(path: String = "/callback", timeout: TimeInterval, message: String, language: String = "en") async throws(GatehouseError) -> URL {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<URL, GatehouseError>, Never>) in
                Thread.detachNewThread {
                    continuation.resume(returning: self.receive(path: path, timeout: timeout, message: message, language: language))
                }
            }
        } onCancel: {
            lock.withLock { cancelled = true }
        }
        return try result.get()
    }

    private func receive(path: String, timeout: TimeInterval, message: String, language: String) -> Result<URL, GatehouseError> {
        defer { stop() }
        let expected = path.hasPrefix("/") ? path : "/" + path
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lock.withLock({ cancelled || closed }) { return .failure(.cancelled) }
            var ready = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            // Short slices, so a cancellation is noticed within a quarter of a second.
            guard poll(&ready, 1, Int32(min(250, max(1, deadline.timeIntervalSinceNow * 1000)))) > 0 else { continue }
            let connection = accept(socketDescriptor, nil, nil)
            guard connection >= 0 else { continue }
            guard let target = Self.requestTarget(of: connection),
                URLComponents(string: target)?.path == expected,
                let url = URL(string: "http://127.0.0.1:\(port)\(target)")
            else {
                Self.respond(connection, status: "404 Not Found", body: "Not here.")
                continue
            }
            Self.respond(connection, status: "200 OK", body: message, language: language)
            return .success(url)
        }
        return .failure(.userAgent(ErrorCause("no answer came back from the browser within \(Int(timeout)) seconds")))
    }

    /// Closes the socket; waiting afterwards ends at once.
    private func stop() {
        let wasOpen = lock.withLock {
            defer { closed = true }
            return !closed
        }
        if wasOpen { close(socketDescriptor) }
    }

    /// The request target of the request line (`GET /callback?code=… HTTP/1.1`), read within a bounded size and time.
    private static func requestTarget(of connection: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 16_384, !received.contains(10) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        let line = String(decoding: received.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard line.count == 3, line[0] == "GET" else { return nil }
        return String(line[1])
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func respond(_ connection: Int32, status: String, body: String, language: String = "en") {
        let direction = StringCatalog.isRightToLeft(language) ? "rtl" : "ltr"
        let page = """
            <!doctype html><html lang="\(escape(language))" dir="\(direction)"><meta charset=utf-8><title>Gatehouse</title>\
            <p>\(escape(body))</p>
            """
        let response = """
            HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\n\
            Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n\(page)
            """
        _ = response.withCString { write(connection, $0, strlen($0)) }
        close(connection)
    }
}
