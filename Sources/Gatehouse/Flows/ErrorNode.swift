import GatehouseProtocol

/// The server refused a submission, e.g. a wrong password. Show ``message`` and let the user retry
/// with ``retry``, the same step again (with its field messages).
public struct ErrorNode: Sendable {
    /// What to tell the user.
    public var message: String { messages.first?.text ?? error.description }
    /// Every message, node-level and per field.
    public let messages: [FlowMessage]
    /// The typed reason: ``GatehouseError/invalidCredentials``, ``GatehouseError/throttled``,
    /// ``GatehouseError/locked`` or ``GatehouseError/invalidInput(_:)``.
    public let error: GatehouseError
    /// The node to show again.
    public let retry: ContinueNode
}
