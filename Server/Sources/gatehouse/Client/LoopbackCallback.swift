import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where another identity provider's answer comes back to the terminal (RFC 8252 §7.3): a port the system gives on
/// 127.0.0.1, listening for one request to `/callback`. The client's redirect URI is registered as
/// `http://127.0.0.1/callback`, which the server matches on any port.
struct LoopbackCallback: Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw CommandError("Cannot open a socket for the browser's answer.") }
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
        guard bound == 0, named == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw CommandError("Cannot listen on 127.0.0.1 for the browser's answer.")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// The redirect URI to start the flow with.
    var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    /// Waits up to `timeout` seconds for the browser to arrive at `/callback`, answers it with a short page, and
    /// returns the URL it came to. Other requests (a favicon) get a 404 and the wait goes on.
    func wait(timeout: Double) async throws -> URL {
        let socket = listener
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                defer { close(socket) }
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, Int32(min(1000, max(1, deadline.timeIntervalSinceNow * 1000)))) > 0 else { continue }
                    let connection = accept(socket, nil, nil)
                    guard connection >= 0 else { continue }
                    let target = Self.requestTarget(of: connection)
                    guard let target, target.hasPrefix("/callback"), let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
                        Self.respond(connection, status: "404 Not Found", body: "Not here.")
                        continue
                    }
                    Self.respond(
                        connection, status: "200 OK", body: "Signed in with the identity provider. You can close this window and go back to the terminal.")
                    continuation.resume(returning: url)
                    return
                }
                continuation.resume(throwing: CommandError("No answer came back from the browser within \(Int(timeout)) seconds."))
            }
        }
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

    private static func respond(_ connection: Int32, status: String, body: String) {
        let page = "<!doctype html><meta charset=utf-8><title>Gatehouse</title><p>\(body)</p>"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n\(page)"
        _ = response.withCString { write(connection, $0, strlen($0)) }
        close(connection)
    }
}
