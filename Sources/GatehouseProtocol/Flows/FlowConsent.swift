/// What a consent node (``FlowStep/consent``) asks the person to allow: which application, as its operator
/// registered it, and what it may do once allowed. The node's label fields say the same in words, for an app that
/// renders nodes generically.
public struct FlowConsent: Codable, Sendable, Equatable {
    /// The application asking.
    public var application: Application
    /// What it asks for that the person has not allowed it yet (every scope again with `prompt=consent`).
    public var scopes: [Scope]

    /// What the person is asked to allow.
    public init(application: Application, scopes: [Scope]) {
        self.application = application
        self.scopes = scopes
    }

    /// An application as its operator registered it.
    public struct Application: Codable, Sendable, Equatable {
        /// The client id.
        public var id: String
        /// Its name, shown as the one asking.
        public var name: String
        /// Its logo's URL, when registered.
        public var logoURI: String?
        /// Its home page, when registered (`client_uri`).
        public var homepage: String?

        /// An application; the logo and home page only when registered.
        public init(id: String, name: String, logoURI: String? = nil, homepage: String? = nil) {
            self.id = id
            self.name = name
            self.logoURI = logoURI
            self.homepage = homepage
        }

        enum CodingKeys: String, CodingKey {
            case id, name
            case logoURI = "logo_uri"
            case homepage = "client_uri"
        }
    }

    /// A scope asked for, with what it lets the application do in plain words.
    public struct Scope: Codable, Sendable, Equatable {
        /// The scope's name, e.g. `email`.
        public var name: String
        /// What it lets the application do, e.g. "See your email address".
        public var description: String

        /// A scope and its description.
        public init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }
}
