/// A command that cannot do what was asked; printed as "Error: …" with exit status 1.
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
