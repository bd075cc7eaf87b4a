/// The flow cannot go on; ``cause`` says why and what to do (usually: start again).
public struct FailureNode: Sendable {
    /// Why the flow ended: the server's error, or what went wrong on the way to it.
    public let cause: GatehouseError
}
