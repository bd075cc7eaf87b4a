/// What a person may do in the admin console: every role sees everything the console shows; an operator also changes
/// what it shows; an admin changes the same, and is the role for those who manage the others' (given and taken at the
/// terminal, `gatehouse admins`).
public enum AdminRole: String, Sendable, Codable, CaseIterable {
    case viewer
    case `operator`
    case admin

    /// Whether the role changes what it sees (every console form but the admins').
    public var canChange: Bool { self != .viewer }
}
