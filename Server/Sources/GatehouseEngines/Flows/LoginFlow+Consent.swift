import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Consent: a third-party client (``Client/isThirdParty``) gets a code only for scopes the person allowed it. The
/// node comes after every other step of a sign-in (``LoginFlow/complete(_:state:user:)``), or on its own for someone a
/// browser session already signed in (``LoginFlow/beginConsent(_:asking:userID:methods:authTime:clientName:owner:)``).
extension LoginFlow {
    /// OAuth's error for a person who did not allow the client (RFC 6749 §4.1.2.1).
    package static let accessDenied = "access_denied"

    /// What `userID` has still to allow the client of `request`: `nil` for a first-party client, or when every scope
    /// asked for (and every scope whose claims the request names) was allowed before and the request does not say
    /// `prompt=consent`. `known` is the request's client when the caller read it already.
    package func consentToAsk(for request: AuthorizationRequest, userID: String, client known: Client? = nil) async throws -> PendingConsent? {
        let found = if let known { known } else { try await clients.find(id: request.clientID) }
        guard let client = found, client.isThirdParty else { return nil }
        // A resource is allowed like a scope (its identifier is recorded beside the scopes): a request for an API and
        // no scope still asks the person first.
        let named = request.resources ?? []
        // A claim asked for by name (`claims`) is allowed as the scope that releases it.
        let claimed = ScopeClaims.scopes(releasing: request.claims).filter { !request.scopes.contains($0) }
        let requested = request.scopes + claimed + named
        let asked =
            if request.prompts.contains("consent") {
                requested
            } else {
                try await consents.find(userID: userID, clientID: client.id)?.missing(from: requested) ?? requested
            }
        guard !asked.isEmpty else { return nil }
        var pending = PendingConsent(
            application: FlowConsent.Application(
                id: client.id, name: settings.branding.name(of: client.id, registered: client.name ?? client.id),
                logoURI: settings.branding.clients[client.id]?.logoURL ?? client.logoURI, homepage: client.homepage),
            scopes: asked)
        pending.descriptions = try await resourceDescriptions(named)
        return pending
    }

    /// What the scopes of the `named` resources, and each resource itself, let an application do, in the resources'
    /// own words; `nil` when the request names none.
    private func resourceDescriptions(_ named: [String]) async throws -> [String: String]? {
        guard !named.isEmpty, let found = try await resources.find(ids: named) else { return nil }
        var descriptions: [String: String] = [:]
        for resource in found {
            descriptions[resource.id] = say("scope.resource", ["resource": resource.name]).text
            for scope in resource.scopes { descriptions[scope.name] = "\(resource.name): \(scope.description)" }
        }
        return descriptions
    }

    /// Starts a flow at the consent node for `userID`, whom this browser's session signed in at `authTime` with
    /// `methods`: finishing it issues the code for that sign-in, without signing in again.
    package func beginConsent(
        _ request: AuthorizationRequest, asking: PendingConsent, userID: String, methods: [String], authTime: Int64, clientName: String,
        owner: FlowStore.Owner
    ) async throws -> (id: String, node: FlowNode) {
        let username = try await users.find(id: userID)?.username
        var state = FlowStore.LoginState(request: request, step: .consent, username: username, clientName: clientName)
        state.account = FlowStore.ProvenAccount(userID: userID, methods: methods, passwordSettled: true)
        state.consent = asking
        state.consent?.sessionAuthTime = authTime
        let id = try await flows.create(state, owner: owner, lifetime: settings.lifetime)
        state.id = id
        return (id, node(for: state))
    }

    /// The consent node: who asks, each scope in plain words (label fields, for any renderer) and as data
    /// (``FlowNode/consent``), Allow and Deny.
    func consentNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let asking =
            state.consent
            ?? PendingConsent(
                application: FlowConsent.Application(id: state.request.clientID, name: state.clientName ?? state.request.clientID),
                scopes: state.request.scopes)
        let name = asking.application.name
        let description =
            if let username = state.username {
                say("flow.consent.description.signed_in", ["username": username, "client": name])
            } else {
                say("flow.consent.description.default", ["client": name])
            }
        let scopes = asking.scopes.map {
            FlowConsent.Scope(name: $0, description: asking.descriptions?[$0] ?? ScopeDescriptions.describe($0, in: wording))
        }
        return FlowNode(
            id: FlowStep.consent.rawValue, name: say("flow.consent.name", ["client": name]), description: description, category: .consent,
            fields: scopes.map { FlowField(key: "scope.\($0.name)", kind: .label, label: $0.description, required: false) },
            actions: [
                FlowAction(id: .submit, kind: .submit, label: say("flow.consent.allow")), FlowAction(id: .deny, kind: .submit, label: say("flow.consent.deny")),
            ],
            messages: messages, consent: FlowConsent(application: asking.application, scopes: scopes))
    }

    /// Allow records the scopes (added to what the person allowed before) and finishes the sign-in; Deny ends the
    /// flow, and the client hears `access_denied`.
    func advanceConsent(_ id: String, state: FlowStore.LoginState, action: FlowActionID) async throws -> Outcome {
        guard let account = state.account, let asking = state.consent else { return .gone }
        let scope = asking.scopes.joined(separator: " ")
        if action == .deny {
            guard try await flows.finish(id, at: state.version) else { throw FlowStore.Superseded() }
            try await audit.record(.consentDenied, user: account.userID, client: state.request.clientID, details: ["scope": scope])
            return .refused(error: Self.accessDenied, description: say("flow.consent.denied", ["client": asking.application.name]).text)
        }
        guard let user = try await users.find(id: account.userID), !user.isLocked else {
            guard try await flows.finish(id, at: state.version) else { throw FlowStore.Superseded() }
            return .gone
        }
        try await consents.grant(asking.scopes, to: state.request.clientID, by: account.userID)
        try await audit.record(.consentGranted, user: account.userID, client: state.request.clientID, details: ["scope": scope])
        var allowed = state
        allowed.consent?.allowed = true
        return try await complete(id, state: allowed, user: user)
    }
}
