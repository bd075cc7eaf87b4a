/// Where a flow stands: the next step, a recoverable error, a failure, or success.
///
/// ```swift
/// var node = await gatehouse.start()
/// while true {
///     switch node {
///     case .continue(var step):
///         step["username"] = "alice"
///         step["password"] = password
///         node = await step.next()
///     case .error(let error):   // wrong password: show error.message, then retry
///         node = .continue(error.retry)
///     case .failure(let failure): print(failure.cause); return
///     case .success(let success): print(success.user); return
///     }
/// }
/// ```
public enum Node: Sendable {
    /// In the middle of the flow: fill in the collectors and call ``ContinueNode/next()``.
    case `continue`(ContinueNode)
    /// The server refused the values (wrong password, invalid input); the user can retry the node.
    case error(ErrorNode)
    /// The flow cannot go on (expired, network failure, refused ID token); start again.
    case failure(FailureNode)
    /// Signed in; the tokens are validated and stored.
    case success(SuccessNode)
}
