import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse events`: the audit trail, filtered, as a table, JSON, or JSON lines for export; `--follow` keeps printing.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show the audit trail: sign-ins, lock-outs, password and factor changes, token reuse, operators' changes.",
        discussion: """
            Oldest first. Times are ISO 8601 (2026-11-25T08:00:00Z) or ago from now (15m, 2h, 7d). \
            Export with --jsonl (one event per line); --follow prints new events as they happen until interrupted.
            """)

    @Option(name: .customLong("type"), help: "Only events of this type, e.g. sign_in.failed (repeatable).")
    var types: [String] = []
    @Option(help: "Only events about this user (username).")
    var user: String?
    @Option(help: "Only events of this client id.")
    var client: String?
    @Option(help: "Only events at or after this time.")
    var since: String?
    @Option(help: "Only events before this time.")
    var until: String?
    @Option(help: "At most this many events (1 to 10000).")
    var limit = 100
    @Flag(help: "One JSON object per line, for export.")
    var jsonl = false
    @Flag(help: "Keep printing new events (every second) until interrupted.")
    var follow = false
    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        let known = Set(AuditEventType.allCases.map(\.rawValue))
        if let unknown = types.first(where: { !known.contains($0) }) {
            throw ValidationError("Unknown event type \(unknown); the types are \(known.sorted().joined(separator: ", ")).")
        }
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be 1 to 10000.") }
        if follow, output.json { throw ValidationError("--follow prints JSON lines with --jsonl, or a table; not --json.") }
        for (name, value) in [("--since", since), ("--until", until)] where value != nil && Self.time(value!) == nil {
            throw ValidationError("\(name) \(value!) is neither an ISO 8601 time nor a duration like 15m, 2h or 7d.")
        }
    }

    /// Unix seconds of an ISO 8601 time, or of now minus a duration (`15m`, `2h`, `7d`).
    static func time(_ text: String) -> Int64? {
        if let date = ISO8601DateFormatter().date(from: text) { return Int64(date.timeIntervalSince1970) }
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 else { return nil }
        let seconds: Int64? = ["s": 1, "m": 60, "h": 3600, "d": 86_400][unit]
        return seconds.map { Int64(Date().timeIntervalSince1970) - amount * $0 }
    }

    func run() async throws {
        var filter = AuditLog.Filter(
            types: types.isEmpty ? nil : types.compactMap(AuditEventType.init(rawValue:)), clientID: client,
            since: since.flatMap(Self.time), until: until.flatMap(Self.time))
        try await store.withOperations { operations in
            if let user { filter.userID = try await operations.user(named: user).id }
            try await show { [filter, limit] after in
                var page = filter
                page.after = after
                return try await operations.events(page, limit: limit)
            }
        }
    }

    /// Prints the first page from `fetch` (events after a cursor), then, with `--follow`, each new page every second.
    private func show(_ fetch: @Sendable (String?) async throws -> [AuditEvent]) async throws {
        var events = try await fetch(nil)
        // A full page may not be all: said on standard error, so the JSON or table on standard output stays whole.
        if events.count == limit, !follow {
            FileHandle.standardError.write(
                Data(
                    "Showing the first \(limit) matching events (oldest first); more may match: raise --limit (up to 10000), or narrow with --since.\n"
                        .utf8))
        }
        if output.json { return try JSONOutput.print(events) }
        print(events, header: true)
        var cursor = events.last?.id
        while follow {
            try await Task.sleep(for: .seconds(1))
            events = try await fetch(cursor)
            print(events, header: false)
            cursor = events.last?.id ?? cursor
        }
    }

    /// Writes `events` at once (unbuffered, so `--follow` shows each as it comes): JSON lines, or table rows, with
    /// the table's header only first.
    private func print(_ events: [AuditEvent], header: Bool) {
        var text = ""
        if jsonl {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for event in events { text += String(decoding: (try? encoder.encode(event)) ?? Data(), as: UTF8.self) + "\n" }
        } else if header || !events.isEmpty {
            var table = TextTable(headers: ["TIME", "TYPE", "ACTOR", "USER", "CLIENT", "ADDRESS", "DETAILS"])
            table.rows = events.map { event in
                [
                    Timestamp.format(event.occurredAt), event.type.rawValue, event.actor, event.userID ?? "-", event.clientID ?? "-", event.address ?? "-",
                    event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                ]
            }
            let lines = table.render().split(separator: "\n", omittingEmptySubsequences: false)
            text = lines.dropFirst(header ? 0 : 1).joined(separator: "\n") + "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
