import Foundation
import GatehouseDomain
import HTTPTypes
import Hummingbird
import NIOCore

/// The live status of a QR sign-in for its page, as server-sent events (`event: status`, `data: {"status":"…"}`).
///
/// The node's ``AppLoginWatcher`` reads the status from the database for every open page at once, so it works
/// whichever node the app's approval reached. The stream ends after a final status, when the code's time is up, or
/// when the node stops: then with a short `retry`, so the browser's EventSource reconnects (to another node) at once,
/// and the page submits the node once the status is final.
struct AppLoginStatusStream: Sendable {
    /// The QR sign-ins whose pages are open on this node, polled together.
    let watcher: AppLoginWatcher
    /// How long a QR code's access code lives, in seconds (`authenticator.access_code_lifetime`).
    let accessCodeLifetime: Int64

    func response(sessionID: String, flowID: String) -> Response {
        let watcher = watcher
        // Bounded: the code's lifetime plus the approval's grace, then the stream ends whatever it saw.
        let maximumPolls = Int(accessCodeLifetime + 150) * 2
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            var last: AppLoginStore.Status?
            var polls = 0
            for await status in watcher.watch(sessionID: sessionID, flowID: flowID) {
                polls += 1
                if status != last {
                    try await writer.write(ByteBuffer(string: "event: status\ndata: {\"status\":\"\(status.rawValue)\"}\n\n"))
                    last = status
                } else if polls % 30 == 0 {
                    // A comment now and then, so proxies do not close a quiet stream.
                    try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                }
                if [.approved, .aborted, .expired].contains(status) || polls >= maximumPolls { break }
            }
            if last.map({ [.approved, .aborted, .expired].contains($0) }) != true {
                // The node is stopping (or the stream ran out): come back soon, to whichever node answers.
                try await writer.write(ByteBuffer(string: "retry: 500\n\n"))
            }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }
}
