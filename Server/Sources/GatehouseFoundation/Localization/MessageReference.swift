/// A catalog message named but not yet worded: its key and arguments, carried from where something went wrong to where
/// the reader's language is known.
package struct MessageReference: Sendable, Equatable {
    /// The message's key in the catalogs, e.g. `federation.unavailable`.
    package let key: String
    package let arguments: [String: String]

    package init(_ key: String, _ arguments: [String: String] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// The message in English: for logs, and for protocol answers (`error_description`) that stay in English.
    package var english: String { Wording.english(self).text }
}

extension Wording {
    /// `reference`'s message in this wording's language.
    package func callAsFunction(_ reference: MessageReference) -> Phrase {
        self(reference.key, reference.arguments)
    }
}
