import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The live status of a QR sign-in for its page, as server-sent events (`event: status`, `data: {"status":"…"}`).
///
/// It reads the status from the database every half second rather than waiting on something in this process,
/// so it works whichever server node the app's approval reached. It ends after a final status, or when the code's
/// time is up; the page then submits the node once and the server renders what comes next.
struct AppLoginStatusStream: Sendable {
    let server: IdentityServer

    static let pollInterval = Duration.milliseconds(500)

    func response(sessionID: String, flowID: String) -> Response {
        let server = server
        // Bounded: the code's lifetime plus the approval's grace, then the stream ends whatever it saw.
        let maximumPolls = Int(server.configuration.authenticator.accessCodeLifetime + 150) * 2
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            var last: AppLoginStore.Status?
            for poll in 0..<maximumPolls {
                let status = (try? await server.appLogins.status(sessionID, flowID: flowID)) ?? .expired
                if status != last {
                    try await writer.write(ByteBuffer(string: "event: status\ndata: {\"status\":\"\(status.rawValue)\"}\n\n"))
                    last = status
                } else if poll % 30 == 29 {
                    // A comment now and then, so proxies do not close a quiet stream.
                    try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                }
                if [.approved, .aborted, .expired].contains(status) { break }
                try await Task.sleep(for: Self.pollInterval)
            }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }
}
