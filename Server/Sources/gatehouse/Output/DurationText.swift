/// Lifetimes typed at the command line as days or hours (`30d`, `12h`), at most a year.
enum DurationText {
    /// The seconds `text` says, or `nil` when it is not a positive number of days or hours up to 365 days.
    static func seconds(of text: String) -> Int64? {
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount > 0, amount <= 365 * 24 else { return nil }
        return [Character("d"): Int64(86_400), "h": 3600][unit].map { amount * $0 }.flatMap { $0 <= 365 * 86_400 ? $0 : nil }
    }
}
