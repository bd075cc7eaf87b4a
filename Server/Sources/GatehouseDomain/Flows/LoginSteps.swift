/// How the login flow asks for credentials.
public enum LoginSteps: String, Sendable, Codable, Equatable {
    /// Username and password on one node.
    case singleNode = "single"
    /// The username on one node, then the password on the next.
    case identifyFirst = "identify_first"
}
