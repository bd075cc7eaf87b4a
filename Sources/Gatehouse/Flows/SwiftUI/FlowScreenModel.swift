import GatehouseProtocol

/// A model that publishes a ``FlowScreen`` to SwiftUI: ``FlowModel`` (Observation) and `FlowObservableModel`
/// (Combine, for iOS 16). Its methods, shared by both, reach every action a node offers; each publishes the screen
/// busy while it works and the answer once it came, never a half-applied one.
@MainActor
public protocol FlowScreenModel: AnyObject {
    /// What the view shows; its ``FlowScreen/step`` is the one to edit (the person's typing goes into it).
    var screen: FlowScreen { get set }
    /// The client the flows run on.
    var client: GatehouseClient { get }
}

extension FlowScreenModel {
    /// Starts (or restarts) a flow, the login flow unless `kind` says otherwise.
    public func start(_ kind: FlowKind = .login, loginHint: String? = nil) async {
        let client = self.client
        await update { await $0.start(kind, loginHint: loginHint, client: client) }
    }

    /// Submits the current step with `action`, one of its ``ContinueNode/submits`` ("Verify", "Send a new code",
    /// "Not now", "Call me instead", "Unlock", or a newer server's button); without one, with its main action.
    public func submit(_ action: SubmitCollector? = nil) async {
        await update { await $0.submit(action) }
    }

    /// Answers the current step's passkey with `provider` (the system's passkey sheet on Apple platforms) and submits:
    /// a passkey step with its main action, the sign-in step with its "Sign in with a passkey" action. A provider
    /// that fails (the person cancelled) leaves the step as it was, with the reason in ``FlowScreen/errorMessage``.
    public func usePasskey(with provider: any PasskeyProvider) async {
        await update { await $0.usePasskey(with: provider) }
    }

    /// Signs in with another identity provider the current step offers, in `browser` (on Apple platforms a
    /// `WebAuthenticationSessionBrowser`); the flow goes on with the browser's return, and a browser closed early
    /// leaves the step as it was with the reason in ``FlowScreen/errorMessage``.
    public func signIn(with provider: IdpCollector, browser: any IdentityProviderBrowser) async {
        await update { await $0.signIn(with: provider, browser: browser) }
    }

    /// Follows a link of the current step to another flow.
    public func follow(_ link: FlowLinkCollector) async {
        await update { await $0.follow(link) }
    }

    /// Runs `change` on a copy of the screen, showing it busy meanwhile, and publishes the result.
    private func update(_ change: (inout FlowScreen) async -> Void) async {
        var next = screen
        screen.isWorking = true
        await change(&next)
        screen = next
    }
}
