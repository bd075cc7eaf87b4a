import Foundation

/// Which language to speak to a person in: the first that names a shipped language of the client's `ui_locales`,
/// the person's own preference, the browser's or app's `Accept-Language`, and the operator's `default_locale`.
package struct LanguageChoice: Sendable, Equatable {
    /// The languages the authorization request asked for (`ui_locales`), in its order.
    package var requested: [String] = []
    /// The preference stored on the account, once the account is known.
    package var preference: String?
    /// The request's `Accept-Language` header.
    package var acceptLanguage: String?

    package init(requested: [String] = [], preference: String? = nil, acceptLanguage: String? = nil) {
        self.requested = requested
        self.preference = preference
        self.acceptLanguage = acceptLanguage
    }

    /// The language chosen, `fallback` when nothing names a shipped one.
    package func language(default fallback: Language) -> Language {
        for tag in requested { if let language = Language(tag: tag) { return language } }
        if let preference, let language = Language(tag: preference) { return language }
        for tag in Self.ranges(in: acceptLanguage ?? "") { if let language = Language(tag: tag) { return language } }
        return fallback
    }

    /// The language ranges of an `Accept-Language` header (RFC 9110, section 12.5.4), most preferred first; ranges
    /// with `q=0` are left out, and so is `*`. At most 16 are read: a longer header gains nothing.
    package static func ranges(in header: String) -> [String] {
        var ranges: [(tag: String, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(16).enumerated() {
            let parts = item.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*", tag.count <= 35 else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { ranges.append((tag, min(quality, 1), order)) }
        }
        return ranges.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.map(\.tag)
    }
}
