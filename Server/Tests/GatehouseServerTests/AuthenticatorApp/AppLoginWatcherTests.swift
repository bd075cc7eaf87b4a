import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The QR pages' shared poller, on both engines: a hundred open pages cost one read per round, not one each, and a
/// stop ends every stream.
@Suite("QR sign-in status poller")
struct AppLoginWatcherTests {
    @Test("a hundred watched sign-ins: one read per round; stop ends every stream", arguments: TestEngine.available)
    func sharedPolling(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = try #require(server.database as? ScopedDatabase)
            let watcher = AppLoginWatcher(store: server.appLogins, interval: .milliseconds(50))
            let before = database.roundTrips.reads
            // Unknown sign-ins read as expired: each page takes three rounds' answers, then leaves.
            let answers = await withTaskGroup(of: [AppLoginStore.Status].self) { group in
                for index in 0..<100 {
                    let stream = watcher.watch(sessionID: "session-\(index)", flowID: "flow-\(index)")
                    group.addTask { await Array(stream.prefix(3)) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let reads = database.roundTrips.reads - before
            #expect(answers.count == 100 && answers.allSatisfy { $0 == [.expired, .expired, .expired] })
            #expect(reads >= 3 && reads <= 10, "\(reads) reads for 100 pages over three rounds")

            // Open streams end when the node stops, and a page that comes later gets an ended stream.
            let open = watcher.watch(sessionID: "s", flowID: "f")
            let (answered, onFirstAnswer) = AsyncStream<Void>.makeStream()
            let reader = Task {
                var count = 0
                for await _ in open {
                    count += 1
                    onFirstAnswer.yield()
                }
                return count
            }
            var firstAnswer = answered.makeAsyncIterator()
            _ = await firstAnswer.next()
            watcher.stop()
            #expect(await reader.value >= 1, "the page had an answer while the node ran, and its stream ended at the stop")
            var late = watcher.watch(sessionID: "s", flowID: "f").makeAsyncIterator()
            #expect(await late.next() == nil)
        }
    }

}
