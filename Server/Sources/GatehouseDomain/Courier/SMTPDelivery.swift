import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Submits mail to an SMTP server (RFC 5321): `EHLO`, `STARTTLS` (RFC 3207) or TLS from the start, `AUTH PLAIN`
/// or `LOGIN` (RFC 4954) only over TLS, then one message per connection. Certificates are verified against the
/// system's roots or the configured ones. 4xx replies are retried; 5xx replies fail the message for good.
package struct SMTPDelivery: MessageDelivery {
    package let settings: SMTPSettings
    package let sender: String
    /// The name this server gives in `EHLO`.
    package let clientName: String

    package func deliver(_ message: CourierMessage) async throws {
        guard let from = EmailAddress.bare(sender), let to = EmailAddress.bare(message.recipient), !message.recipient.contains("<") else {
            throw DeliveryFailure(description: "The sender or recipient is not a valid email address.", permanent: true)
        }
        let tls = try tlsContext()
        let host = settings.host
        let implicitTLS = settings.security == .tls
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(min(settings.timeout, 30)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicitTLS { try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: host)) }
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyReader())
                    }
                }
                .connect(host: host, port: settings.port).get()
        } catch {
            throw DeliveryFailure(description: "Cannot connect to the SMTP server \(host):\(settings.port): \(error)")
        }
        // One deadline for the whole conversation: closing the channel fails whatever is waiting.
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(settings.timeout)) { channel.close(promise: nil) }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        let session = Session(channel: channel)
        try await session.expect(220, for: "the greeting")
        var features = try await session.command("EHLO \(clientName)", expect: 250)
        if settings.security == .starttls {
            guard features.offers("STARTTLS") else {
                throw DeliveryFailure(description: "The SMTP server \(host) does not offer STARTTLS; refusing to send in the clear.")
            }
            _ = try await session.command("STARTTLS", expect: 220)
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: host), position: .first)
            }.get()
            features = try await session.command("EHLO \(clientName)", expect: 250)
        }
        if let username = settings.username, let password = settings.password {
            let authLine = features.lines.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased() ?? ""
            if authLine.contains("PLAIN") {
                let credentials = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
                _ = try await session.command("AUTH PLAIN \(credentials)", expect: 235, redacted: "AUTH PLAIN")
            } else if authLine.contains("LOGIN") {
                _ = try await session.command("AUTH LOGIN", expect: 334)
                _ = try await session.command(Data(username.utf8).base64EncodedString(), expect: 334, redacted: "the username")
                _ = try await session.command(Data(password.utf8).base64EncodedString(), expect: 235, redacted: "the password")
            } else {
                throw DeliveryFailure(description: "The SMTP server \(host) offers neither AUTH PLAIN nor AUTH LOGIN.", permanent: true)
            }
        }
        _ = try await session.command("MAIL FROM:<\(from)>", expect: 250)
        _ = try await session.command("RCPT TO:<\(to)>", expect: 250, accepting: [251])
        _ = try await session.command("DATA", expect: 354)
        try await session.data(Self.format(message, from: sender, to: to, host: clientName))
        _ = try? await session.command("QUIT", expect: 221)
    }

    private func tlsContext() throws -> NIOSSLContext? {
        guard settings.security != .none else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let path = settings.trustedCertificates {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw DeliveryFailure(description: "Cannot read the trusted certificates \(path): \(error)", permanent: true)
            }
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw DeliveryFailure(description: "Cannot set up TLS: \(error)", permanent: true)
        }
    }

    /// A TLS handler that verifies the certificate for `host` (by name, or by address when `host` is an IP).
    private static func tlsHandler(_ context: NIOSSLContext?, host: String) throws -> NIOSSLClientHandler {
        guard let context else { throw DeliveryFailure(description: "TLS is not configured.", permanent: true) }
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }

    /// The message as RFC 5322 text: UTF-8 body in base64 (so no line can read as the end of data), the subject
    /// as an encoded word when it is not ASCII.
    package static func format(_ message: CourierMessage, from: String, to: String, host: String) -> String {
        let subject = message.subject.allSatisfy(\.isASCII) ? message.subject : "=?utf-8?B?\(Data(message.subject.utf8).base64EncodedString())?="
        let date = DateFormatter()
        date.locale = Locale(identifier: "en_US_POSIX")
        date.timeZone = TimeZone(identifier: "UTC")
        date.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let body = Data(message.body.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let headers = [
            "From: \(from)", "To: <\(to)>", "Subject: \(subject)", "Date: \(date.string(from: Date(timeIntervalSince1970: TimeInterval(message.createdAt))))",
            "Message-ID: <\(message.id)@\(host)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64", "Auto-Submitted: auto-generated",
        ]
        return (headers + ["", body]).joined(separator: "\r\n")
    }

    /// Commands and replies on one connection, one at a time.
    private struct Session {
        let channel: any Channel

        func expect(_ code: Int, for what: String) async throws {
            let reply = try await next()
            guard reply.code == code else { throw Self.failure(reply, after: what) }
        }

        func command(_ line: String, expect code: Int, accepting others: [Int] = [], redacted: String? = nil) async throws -> SMTPReply {
            guard !line.contains("\n") && !line.contains("\r") else { throw DeliveryFailure(description: "A line break in an SMTP command.", permanent: true) }
            return try await send(line + "\r\n", expect: [code] + others, describedAs: redacted ?? String(line.prefix(40)))
        }

        /// The message after `DATA`, ended by a line with a single dot.
        func data(_ text: String) async throws {
            _ = try await send(text + "\r\n.\r\n", expect: [250], describedAs: "the message")
        }

        private func send(_ text: String, expect codes: [Int], describedAs what: String) async throws -> SMTPReply {
            try await channel.writeAndFlush(ByteBuffer(string: text)).get()
            let reply = try await next()
            guard codes.contains(reply.code) else { throw Self.failure(reply, after: what) }
            return reply
        }

        private func next() async throws -> SMTPReply {
            let channel = channel
            return try await channel.eventLoop.flatSubmit {
                do {
                    return try channel.pipeline.syncOperations.handler(type: SMTPReplyReader.self).nextReply(on: channel.eventLoop)
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }.get()
        }

        private static func failure(_ reply: SMTPReply, after what: String) -> DeliveryFailure {
            DeliveryFailure(description: "The SMTP server answered \(reply.code) \(reply.text.prefix(200)) to \(what).", permanent: reply.code >= 500)
        }
    }
}
