import GatehouseProtocol

/// A consent node's question, kept with the flow: who asks and for what, and whether the person allowed it.
package struct PendingConsent: Codable, Sendable, Equatable {
    /// The application asking, as the node shows it.
    package var application: FlowConsent.Application
    /// The scopes to allow: those the person has not allowed the client yet (all of them with `prompt=consent`).
    package var scopes: [String]
    /// Allowed in this flow: finishing it no longer asks.
    package var allowed = false
    /// When the flow only asks for consent, for someone this browser's session already signed in: that sign-in's
    /// time, which the code carries (the session stays as it is).
    package var sessionAuthTime: Int64?
    /// The words of the resources' scopes, and of the resources themselves, where the request names resources
    /// (``Resource/Scope/description``): the server's own scopes are described by ``ScopeDescriptions``.
    package var descriptions: [String: String]?

    package init(application: FlowConsent.Application, scopes: [String]) {
        self.application = application
        self.scopes = scopes
    }
}
