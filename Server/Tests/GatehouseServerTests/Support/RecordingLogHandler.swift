import Logging
import NIOConcurrencyHelpers

/// A log handler that keeps what it is given, so a test can read what an operator would see in the log.
struct RecordingLogHandler: LogHandler {
    /// One line as logged.
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// Where the entries go; shared by every copy of the handler (a `Logger` copies its handler).
    final class Box: Sendable {
        private let entries = NIOLockedValueBox<[Entry]>([])
        var all: [Entry] { entries.withLockedValue { $0 } }
        func append(_ entry: Entry) { entries.withLockedValue { $0.append(entry) } }
        /// The entries whose message is `message`.
        func named(_ message: String) -> [Entry] { all.filter { $0.message == message } }
    }

    let box: Box
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// A logger whose every line lands in the returned box.
    static func logger(label: String = "recorded") -> (Logger, Box) {
        let box = Box()
        return (Logger(label: label) { _ in RecordingLogHandler(box: box) }, box)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        box.append(Entry(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
