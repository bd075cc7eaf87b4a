import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Courier queue and message format")
struct CourierQueueTests {
    @Test("a failed delivery is retried with doubling delays, then given up; contents are sealed at rest", arguments: TestEngine.available)
    func retries(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let queue = CourierQueue(database: server.database, clock: clock, secret: server.secret)
            let id = try #require(
                try await queue.enqueue(
                    channel: .email, recipient: "Ann@Example.com", template: .verificationCode,
                    subject: "Confirm", body: "123456 is your code"))
            let stored = try await server.database.read { sql in
                try await sql.raw("SELECT sealed_content, recipient FROM courier_messages WHERE id = \(bind: id)").first()
            }
            let sealed = try #require(try stored?.decode(column: "sealed_content", as: String.self))
            #expect(!sealed.contains("123456"))
            #expect(try stored?.decode(column: "recipient", as: String.self) == "ann@example.com")

            var claimed = try await queue.claimDue(limit: 10)
            #expect(claimed.map(\.id) == [id] && claimed[0].attempts == 1 && claimed[0].body == "123456 is your code")
            #expect(try await queue.claimDue(limit: 10).isEmpty, "a claimed message is not handed out twice")
            #expect(try await queue.markFailed(claimed[0], error: "451", permanent: false, maxAttempts: 3, retryDelay: 10) == .queued)
            advance(9)
            #expect(try await queue.claimDue(limit: 10).isEmpty)
            advance(1)
            claimed = try await queue.claimDue(limit: 10)
            #expect(claimed.first?.attempts == 2)
            #expect(try await queue.markFailed(claimed[0], error: "451", permanent: false, maxAttempts: 3, retryDelay: 10) == .queued)
            advance(19)
            #expect(try await queue.claimDue(limit: 10).isEmpty, "the second retry waits twice as long")
            advance(1)
            claimed = try await queue.claimDue(limit: 10)
            #expect(try await queue.markFailed(claimed[0], error: "still down", permanent: false, maxAttempts: 3, retryDelay: 10) == .failed)
            let listed = try await queue.list(recipient: "ann@example.com")
            #expect(listed.first?.status == .failed && listed.first?.attempts == 3 && listed.first?.lastError == "still down")
        }
    }

    @Test("one recipient gets at most the hourly limit, other recipients are not affected, and the hour slides", arguments: TestEngine.available)
    func recipientLimit(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let queue = CourierQueue(database: server.database, clock: clock, secret: server.secret)
            let send = { (to: String) async throws -> Bool in
                try await queue.enqueue(channel: .sms, recipient: to, template: .signInCode, subject: "", body: "code", hourlyLimit: 3) != nil
            }
            var queued: [Bool] = []
            for _ in 0..<4 { queued.append(try await send("+15550001111")) }
            #expect(queued == [true, true, true, false], "the fourth message within the hour is dropped")
            let other = try await send("+15550002222")
            #expect(other, "another number has its own count")
            advance(3599)
            let late = try await send("+15550001111")
            #expect(!late)
            advance(2)
            let next = try await send("+15550001111")
            #expect(next, "an hour after the first messages the count has room again")
            #expect(try await queue.list(recipient: "+15550001111").count == 4, "a dropped message leaves no row")
        }
    }

    @Test("SMTP text: headers, base64 body, encoded non-ASCII subject")
    func format() throws {
        let message = CourierMessage(
            id: "m1", channel: .email, recipient: "a@example.com", template: "verification_code", subject: "Code für dich",
            body: "123456 is your code.\n.\nEnd", status: .queued, attempts: 1, nextAttemptAt: 0, lastError: nil,
            createdAt: 0, sentAt: nil)
        let text = SMTPDelivery.format(message, from: "Gatehouse <no-reply@example.com>", to: "a@example.com", host: "id.example.com")
        let (headers, body) = try #require(text.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init).splitPair)
        #expect(headers.contains("Subject: =?utf-8?B?\(Data("Code für dich".utf8).base64EncodedString())?="))
        #expect(headers.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000") && headers.contains("Message-ID: <m1@id.example.com>"))
        #expect(!text.contains("\r\n.\r\n"), "no line is a lone dot, which would end the DATA early")
        #expect(String(decoding: try #require(Data(base64Encoded: body.replacingOccurrences(of: "\r\n", with: ""))), as: UTF8.self) == message.body)
    }
}

extension Array where Element == String {
    /// The two halves of a split in two, or `nil`.
    var splitPair: (String, String)? { count == 2 ? (self[0], self[1]) : nil }
}
