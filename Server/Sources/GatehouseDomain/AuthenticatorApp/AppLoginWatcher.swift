import Foundation
import GatehouseFoundation
import Synchronization

/// Follows the QR sign-ins whose pages are open on this node: one poller reads every watched sign-in's status in one
/// query every half second and hands each page its own, so a thousand open pages cost two queries a second instead
/// of two thousand. It reads the database, not this process's memory, so an approval that reached another node is
/// seen all the same. At shutdown (``stop()``) every page's stream ends, and the browser reconnects to another node.
package final class AppLoginWatcher: Sendable {
    package let store: AppLoginStore
    package let interval: Duration

    private struct Watch {
        let sessionID: String
        let flowHash: String
        let continuation: AsyncStream<AppLoginStore.Status>.Continuation
    }

    private struct State {
        var watches: [Int: Watch] = [:]
        var nextID = 0
        var polling = false
        var stopped = false
    }

    private let state = Mutex(State())

    package init(store: AppLoginStore, interval: Duration = .milliseconds(500)) {
        self.store = store
        self.interval = interval
    }

    /// The status of the sign-in `sessionID` of flow `flowID`, at every poll, until the caller stops listening or
    /// the node stops.
    package func watch(sessionID: String, flowID: String) -> AsyncStream<AppLoginStore.Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppLoginStore.Status.self, bufferingPolicy: .bufferingNewest(1))
        let (id, startPoller) = state.withLock { state -> (Int?, Bool) in
            guard !state.stopped else { return (nil, false) }
            let id = state.nextID
            state.nextID += 1
            state.watches[id] = Watch(sessionID: sessionID, flowHash: TokenDigest.hex(flowID), continuation: continuation)
            defer { state.polling = true }
            return (id, !state.polling)
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watches.removeValue(forKey: id) } }
        if startPoller { Task { await CallerPresence.unattended { await self.poll() } } }
        return stream
    }

    /// Ends every stream and watches nothing more: the node is stopping.
    package func stop() {
        let watches = state.withLock { state in
            state.stopped = true
            defer { state.watches.removeAll() }
            return Array(state.watches.values)
        }
        for watch in watches { watch.continuation.finish() }
    }

    /// How many pages are watched now.
    package var count: Int { state.withLock { $0.watches.count } }

    /// Rounds in a row the database may fail to answer before every stream ends (their pages reconnect).
    package static let failuresBeforeGivingUp = 10

    private func poll() async {
        var failures = 0
        while true {
            let watches = state.withLock { state -> [Watch]? in
                guard !state.stopped, !state.watches.isEmpty else {
                    state.polling = false
                    return nil
                }
                return Array(state.watches.values)
            }
            guard let watches else { return }
            // A failed read skips a round; after several in a row the streams end, and their pages reconnect.
            if let statuses = try? await store.statuses(Set(watches.map(\.sessionID))) {
                failures = 0
                for watch in watches {
                    // Another flow's sign-in, or one past its time, reads as expired.
                    if let found = statuses[watch.sessionID], found.flowHash == watch.flowHash {
                        watch.continuation.yield(found.status)
                    } else {
                        watch.continuation.yield(.expired)
                    }
                }
            } else {
                failures += 1
                if failures >= Self.failuresBeforeGivingUp {
                    failures = 0
                    for watch in watches { watch.continuation.finish() }
                }
            }
            try? await Task.sleep(for: interval)
        }
    }
}
