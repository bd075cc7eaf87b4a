import NIOCore

/// One SMTP reply (RFC 5321 §4.2): a three-digit code and its text lines.
package struct SMTPReply: Sendable, Equatable {
    package var code: Int
    package var lines: [String]

    package var text: String { lines.joined(separator: " ") }
    /// Whether the server offered `keyword` in its `EHLO` answer (extensions are one per line).
    package func offers(_ keyword: String) -> Bool {
        lines.contains { $0.uppercased() == keyword || $0.uppercased().hasPrefix(keyword + " ") }
    }
}

/// Splits what the server sends into replies, and hands each to the oldest waiting request. Lives on the
/// channel's event loop.
package final class SMTPReplyReader: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer

    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var ready: [SMTPReply] = []
    private var waiting: [EventLoopPromise<SMTPReply>] = []
    private var failure: (any Error)?
    /// A reply longer than this is not SMTP; stop reading instead of buffering without end.
    private static let maximumReply = 64 * 1024

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            if line.hasSuffix("\r") { line.removeLast() }
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
                fail(DeliveryFailure(description: "The SMTP server sent something that is not a reply: \(line.prefix(80))"), context: context)
                return
            }
            lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
            if bytes.count == 3 || bytes[3] == UInt8(ascii: " ") {
                deliver(SMTPReply(code: code, lines: lines))
                lines = []
            }
        }
        if pending.count > Self.maximumReply || lines.count > 200 {
            fail(DeliveryFailure(description: "The SMTP server's reply is too long."), context: context)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        fail(DeliveryFailure(description: "The SMTP server closed the connection."), context: context)
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(DeliveryFailure(description: "SMTP connection error: \(error)"), context: context)
    }

    /// The next reply, whether already received or still to come.
    package func nextReply(on eventLoop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        if !ready.isEmpty { return eventLoop.makeSucceededFuture(ready.removeFirst()) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        waiting.append(promise)
        return promise.futureResult
    }

    private func deliver(_ reply: SMTPReply) {
        if waiting.isEmpty { ready.append(reply) } else { waiting.removeFirst().succeed(reply) }
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        if failure == nil { failure = error }
        let waiters = waiting
        waiting = []
        for promise in waiters { promise.fail(error) }
        context.close(promise: nil)
    }
}
