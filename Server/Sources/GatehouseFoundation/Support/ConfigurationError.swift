/// A configuration or input problem, with a message that says what to change.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// The setting at fault, as its path in the configuration file (`connections.max_connections`), when the problem
    /// is one setting's; `nil` for other input (a client id, a redirect URI) and for problems of the file as a whole.
    public let key: String?

    /// A problem that is not one setting's.
    public init(_ description: String) {
        self.description = description
        key = nil
    }

    /// A problem of the setting `key`: the message is the key followed by `problem` (`"must be at least 8."`).
    public init(key: String, _ problem: String) {
        self.key = key
        description = "\(key) \(problem)"
    }

    /// A problem of the setting `key`, said by `description` as a whole.
    public init(_ description: String, key: String) {
        self.description = description
        self.key = key
    }
}
