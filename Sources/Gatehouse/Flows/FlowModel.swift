#if canImport(Observation)
import Observation

/// A login flow as observable state for SwiftUI: bind the view to ``step`` and ``errorMessage``, call
/// ``start(_:loginHint:)``, then ``submit()`` whenever the user presses the button.
///
/// ```swift
/// @State private var flow = FlowModel(client: gatehouse)
/// var body: some View {
///     if let step = flow.step { NodeView(step: $flow.step) { Task { await flow.submit() } } }
///     if let message = flow.errorMessage { Text(message).foregroundStyle(.red) }
///     ...
///     .task { await flow.start() }
/// }
/// ```
@available(iOS 17, macOS 14, *)
@MainActor
@Observable
public final class FlowModel {
    /// The step to show and edit, while the flow waits for the user.
    public var step: ContinueNode?
    /// What went wrong with the last submission (wrong password, invalid input), to show above the form.
    public private(set) var errorMessage: String?
    /// Why the flow ended without signing in; call ``start(_:loginHint:)`` to begin again.
    public private(set) var failure: GatehouseError?
    /// The signed-in user once the flow succeeded.
    public private(set) var user: UserSession?
    /// Who signed in.
    public private(set) var claims: IDTokenClaims?
    /// Whether a request is under way (disable the button).
    public private(set) var isWorking = false

    private let client: GatehouseClient

    /// A model that runs flows with `client`; call ``start(_:loginHint:)`` to show the first node.
    public init(client: GatehouseClient) {
        self.client = client
    }

    /// Starts (or restarts) a flow, the login flow unless `kind` says otherwise.
    public func start(_ kind: FlowKind = .login, loginHint: String? = nil) async {
        failure = nil
        errorMessage = nil
        await run { await self.client.start(kind, loginHint: loginHint) }
    }

    /// Submits the current step with its main action.
    public func submit() async {
        guard let step else { return }
        await run { await step.next() }
    }

    /// Answers the current step's passkey with `provider` (the system's passkey sheet on Apple platforms) and submits:
    /// a passkey step with its main action, the sign-in step with its "Sign in with a passkey" action. A provider
    /// that fails (the person cancelled) leaves the step as it was, with the reason in ``errorMessage``.
    public func usePasskey(with provider: any PasskeyProvider) async {
        guard var step, let index = step.collectors.firstIndex(where: { if case .passkey = $0 { true } else { false } }),
            case .passkey(let passkey) = step.collectors[index]
        else { return }
        isWorking = true
        do {
            step[passkey.key] =
                passkey.ceremony == .create
                ? try await provider.createPasskey(optionsJSON: passkey.optionsJSON) : try await provider.usePasskey(optionsJSON: passkey.optionsJSON)
        } catch {
            isWorking = false
            errorMessage = "The passkey could not be used: \(error)"
            return
        }
        let answered = step
        if let action = answered.submits.first(where: { $0.id == "passkey" }) {
            await run { await answered.next(action) }
        } else {
            await run { await answered.next() }
        }
    }

    /// Signs in with another identity provider the current step offers, in `browser` (on Apple platforms a
    /// `WebAuthenticationSessionBrowser`); the flow goes on with the browser's return, and a browser closed early
    /// leaves the step as it was with the reason in ``errorMessage``.
    public func signIn(with provider: IdpCollector, browser: any IdentityProviderBrowser) async {
        guard let step else { return }
        await run { await step.next(signingInWith: provider, browser: browser) }
    }

    /// Follows a link of the current step.
    public func follow(_ link: FlowLinkCollector) async {
        guard let step else { return }
        await run { await step.next(following: link) }
    }

    private func run(_ operation: @Sendable () async -> Node) async {
        isWorking = true
        defer { isWorking = false }
        switch await operation() {
        case .continue(let next):
            step = next
            errorMessage = nil
        case .error(let error):
            step = error.retry
            errorMessage = error.message
        case .failure(let failed):
            step = nil
            failure = failed.cause
            errorMessage = failed.cause.description
        case .success(let success):
            step = nil
            errorMessage = nil
            user = success.user
            claims = success.claims
        }
    }
}
#endif
