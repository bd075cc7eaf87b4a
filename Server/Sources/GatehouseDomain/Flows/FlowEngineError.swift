/// A flow engine mistake that the types do not rule out; answered as a server error, never reached by any input.
package enum FlowEngineError: Error, Sendable {
    /// A step handler needed password work that ``LoginFlow/preparePasswords(for:action:values:)`` did not do.
    case passwordNotPrepared
    /// A sign-in finished without the caller's part of it (its code or session) made in its transaction.
    case signInNotRecorded
    /// A provider's answer reached its handler without ``LoginFlow/prepareUpstream(for:values:)`` having read it.
    case upstreamNotPrepared
}
