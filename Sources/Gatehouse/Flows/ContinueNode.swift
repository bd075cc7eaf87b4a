import Foundation
import GatehouseProtocol

/// A step of a flow waiting for the user: render its ``collectors``, fill them in, then call ``next()``.
public struct ContinueNode: Sendable, Identifiable {
    /// The node as the server sent it.
    public let node: FlowNode
    /// Fields and actions, in the order to show them.
    public var collectors: [Collector]
    let context: FlowContext

    init(node: FlowNode, context: FlowContext) {
        self.node = node
        self.context = context
        collectors = node.fields.map { Collector(field: $0, messages: node.messages) } + node.actions.map(Collector.init(action:))
    }

    /// Stable identifier of the step, e.g. `login.password`.
    public var id: String { node.id }
    /// The step, when it is one this version of the SDK knows (`FlowStep`); a newer server's step is `nil`.
    public var step: FlowStep? { node.step }
    /// The node's title, such as "Sign in".
    public var name: String { node.name }
    /// One sentence saying what the node asks for, to show under the title.
    public var description: String { node.description }
    /// Which kind of screen this is, e.g. `sign_in`.
    public var category: String { node.category }
    /// Messages about the node as a whole (field messages are on their collectors).
    public var messages: [FlowMessage] { node.messages.filter { $0.field == nil } }
    /// On a consent node (``SignInStatus/consent``): the application asking and the scopes it asks for. Allow with
    /// ``next()``, deny with `next(submit(.deny)!)`, which ends the flow with `access_denied`.
    public var consent: FlowConsent? { node.consent }
    /// On a node that asks for a code: where it comes from (an authenticator app, a text message, a call, an email,
    /// the saved recovery codes), to word the step and offer the right autofill.
    public var codeSource: CodeSource? { node.codeSource }

    /// The value of the field `key`; setting it fills a text-like field or chooses an option
    /// (comma-separated values for a multiple choice).
    public subscript(key: String) -> String? {
        get { collectors.lazy.compactMap(\.field).first { $0.key == key }?.fieldValue.text }
        set {
            guard let index = collectors.firstIndex(where: { $0.field?.key == key }) else { return }
            collectors[index].set(newValue ?? "")
        }
    }

    /// The values that will be submitted, by field key.
    public var values: [String: FieldValue] {
        Dictionary(collectors.compactMap(\.field).map { ($0.key, $0.fieldValue) }, uniquingKeysWith: { first, _ in first })
    }

    /// What the server's rules say about the current values, checked on the device and worded in the configuration's
    /// ``GatehouseConfiguration/preferredLanguages``; empty when the node can be submitted.
    public var problems: [FlowMessage] {
        let languages = context.preferredLanguages
        return node.fields.compactMap { field in
            field.localizedProblem(with: values[field.key], in: languages).map {
                FlowMessage(level: .error, text: $0, field: field.key, code: "invalid_value")
            }
        }
    }

    /// The node's main submit action.
    public var submit: SubmitCollector? { submits.first }

    /// Every submit action, the main one first (e.g. "Verify", then "Resend code" or "Use another method").
    public var submits: [SubmitCollector] {
        collectors.compactMap { if case .submit(let submit) = $0 { submit } else { nil } }
    }

    /// The submit action `id`, when the node offers it (e.g. `.resend`, `.skip`).
    public func submit(_ id: FlowActionID) -> SubmitCollector? {
        submits.first { $0.id == id.rawValue }
    }

    /// The node's passkey to create or use, if it has one.
    var passkey: PasskeyCollector? {
        collectors.lazy.compactMap { if case .passkey(let passkey) = $0 { passkey } else { nil } }.first
    }

    /// The links to other flows this node offers.
    public var links: [FlowLinkCollector] {
        collectors.compactMap { if case .flowLink(let link) = $0 { link } else { nil } }
    }

    /// Checks the values on the device, then submits them with the main action and returns the next node.
    public func next() async -> Node {
        await next(action: submit?.id ?? FlowActionID.submit.rawValue, validate: true)
    }

    /// Submits with a particular submit action; only the node's main action checks the values first.
    public func next(_ action: SubmitCollector) async -> Node {
        await next(action: action.id, validate: action.id == node.primaryAction?.id)
    }

    /// The other identity providers this node offers ("Sign in with GitHub").
    public var identityProviders: [IdpCollector] {
        collectors.compactMap { if case .idp(let provider) = $0 { provider } else { nil } }
    }

    /// Signs in with another identity provider: opens its page with `browser`, then hands the URL the browser came
    /// back to (the app's redirect URI with `code` and `state`, or `error`) to the flow, and returns where it went:
    /// signed in, a second factor, or linking to an existing account. A browser closed early is an error node on this node
    /// with ``GatehouseError/cancelled`` (the browser threw `CancellationError`); a browser that failed is one with
    /// ``GatehouseError/userAgent(_:)``.
    public func next(signingInWith provider: IdpCollector, browser: any IdentityProviderBrowser) async -> Node {
        guard provider.url != nil, let scheme = URL(string: context.client.configuration.redirectURI)?.scheme else {
            return .failure(FailureNode(cause: .unexpectedResponse(status: 200)))
        }
        let returned: URL
        do {
            returned = try await provider.authorize(with: browser, callbackScheme: scheme)
        } catch {
            return failed(provider, error)
        }
        return await context.submit(action: FlowActionID.identityProviderCallback.rawValue, values: Self.callbackValues(of: returned))
    }

    /// Signs in with another identity provider through its own sign-in on the device (`native`: the Sign in with Apple
    /// sheet, Google's SDK), where the server takes such tokens (``IdpCollector/takesAppTokens``): the provider is
    /// given the flow's single-use nonce, and the ID token it returns goes to the flow, which checks its signature,
    /// issuer, audience (the app), expiry and nonce. Returns where the flow went, as with the browser: signed in, a
    /// second factor, or linking. Closed early, it is an error node on this node with ``GatehouseError/cancelled``;
    /// failed, with ``GatehouseError/userAgent(_:)``; a token the server refuses, with the server's message.
    public func next(signingInWith provider: IdpCollector, native: any NativeIdentityProvider) async -> Node {
        guard let nonce = provider.action.nonce else {
            let message = FlowMessage(level: .error, text: "\(provider.label) is not offered for apps' own sign-in here.", code: "idp_not_native")
            return .error(ErrorNode(messages: [message], error: .unsupportedStep(id), retry: self))
        }
        let credential: NativeIdentityCredential
        do {
            credential = try await native.signIn(nonce: nonce)
        } catch {
            return failed(provider, error)
        }
        var values: [String: FieldValue] = ["provider": .text(provider.providerID), "id_token": .text(credential.idToken)]
        if let name = credential.name { values["name"] = .text(name) }
        return await context.submit(action: FlowActionID.identityProviderToken.rawValue, values: values)
    }

    /// This node again, saying why signing in with `provider` stopped: the person cancelled, or it failed.
    private func failed(_ provider: IdpCollector, _ error: any Error) -> Node {
        switch error {
        case is CancellationError, GatehouseError.cancelled:
            let message = FlowMessage(level: .error, text: "\(provider.label) was cancelled.", code: "idp_cancelled")
            return .error(ErrorNode(messages: [message], error: .cancelled, retry: self))
        default:
            // Not the person's choice: the browser or the provider's sheet could not be shown, or failed.
            let message = FlowMessage(level: .error, text: "\(provider.label) did not finish (\(error)). Try again.", code: "idp_browser_failed")
            return .error(ErrorNode(messages: [message], error: .userAgent(ErrorCause(error)), retry: self))
        }
    }

    /// The query parameters of the browser's return that the server reads.
    static func callbackValues(of url: URL) -> [String: FieldValue] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        var values: [String: FieldValue] = [:]
        for name in IdpCollector.callbackParameters {
            if let value = items.first(where: { $0.name == name })?.value { values[name] = .text(value) }
        }
        return values
    }

    /// Follows a link to another flow; the values are not checked.
    public func next(following link: FlowLinkCollector) async -> Node {
        await next(action: link.id, validate: false)
    }

    func next(action: String, validate: Bool) async -> Node {
        if validate {
            let problems = self.problems
            if !problems.isEmpty {
                // Shown like the server's answer, without a round trip.
                var again = ContinueNode(node: node.with(messages: problems), context: context)
                again.keepValues(of: self)
                return .error(ErrorNode(messages: problems, error: .invalidInput(problems), retry: again))
            }
        }
        return await context.submit(action: action, values: values)
    }

    /// Copies what the user entered on `other` (the same node), except secrets.
    mutating func keepValues(of other: ContinueNode) {
        for collector in other.collectors {
            guard let field = collector.field, !field.field.isSecret else { continue }
            self[field.key] = field.fieldValue.text
        }
    }
}

extension FlowNode {
    func with(messages: [FlowMessage]) -> FlowNode {
        var copy = self
        copy.messages = messages
        return copy
    }
}
