/// The flow cannot go on; ``cause`` says why and what to do (usually: start again).
public struct FailureNode: Sendable {
    public let cause: GatehouseError
}
