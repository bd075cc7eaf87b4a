import Foundation
import GatehouseProtocol

/// What a view shows for a flow at one moment: the step waiting for the person, what went wrong with the last
/// submission (for the node and per field), whether a request is under way, and how the flow ended. ``FlowModel``
/// (Observation) and `FlowObservableModel` (Combine, for iOS 16) both publish one.
public struct FlowScreen: Sendable {
    /// The step to show and edit, while the flow waits for the person.
    public var step: ContinueNode?
    /// What went wrong with the last submission (a wrong password, a refused code), to show above the form.
    public var errorMessage: String?
    /// What is wrong with a field, by its key, to show under it (and to mark it invalid for accessibility).
    public var fieldErrors: [String: String] = [:]
    /// Why the flow ended without signing in; start again to begin a new one.
    public var failure: GatehouseError?
    /// The signed-in user once the flow succeeded.
    public var user: UserSession?
    /// Who signed in.
    public var claims: IDTokenClaims?
    /// Whether a request is under way: disable the buttons and show progress.
    public var isWorking = false

    /// A screen with nothing to show yet.
    public init() {}

    /// Shows where the flow went.
    mutating func show(_ node: Node) {
        fieldErrors = [:]
        switch node {
        case .continue(let next):
            step = next
            errorMessage = nil
        case .error(let error):
            step = error.retry
            let general = error.messages.filter { $0.field == nil }
            errorMessage = general.first?.text ?? (error.messages.isEmpty ? error.error.description : nil)
            for message in error.messages {
                guard let field = message.field, fieldErrors[field] == nil else { continue }
                fieldErrors[field] = message.text
            }
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

    /// Starts a flow of `kind` with `client`: a blank screen, then its first node.
    mutating func start(_ kind: FlowKind, loginHint: String?, client: GatehouseClient) async {
        self = FlowScreen()
        await run { await client.start(kind, loginHint: loginHint) }
    }

    /// Submits the step with `action`: the main one checks the values first, the others do not.
    mutating func submit(_ action: SubmitCollector?) async {
        guard let step else { return }
        if let action {
            await run { await step.next(action) }
        } else {
            await run { await step.next() }
        }
    }

    /// Answers the step's passkey with `provider`, then submits it (the sign-in node with its passkey action).
    mutating func usePasskey(with provider: any PasskeyProvider) async {
        guard var step, let passkey = step.passkey else { return }
        isWorking = true
        do {
            step[passkey.key] = try await passkey.credential(from: provider)
        } catch {
            isWorking = false
            let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            errorMessage = StringCatalog.text("flow.passkey_failed", [reason], languages: step.context.preferredLanguages)
            return
        }
        self.step = step
        await submit(step.submit(.passkey))
    }

    /// Signs in with `provider` in `browser`; the flow goes on with the browser's return.
    mutating func signIn(with provider: IdpCollector, browser: any IdentityProviderBrowser) async {
        guard let step else { return }
        await run { await step.next(signingInWith: provider, browser: browser) }
    }

    /// Follows `link` to another flow.
    mutating func follow(_ link: FlowLinkCollector) async {
        guard let step else { return }
        await run { await step.next(following: link) }
    }

    private mutating func run(_ operation: @Sendable () async -> Node) async {
        isWorking = true
        defer { isWorking = false }
        show(await operation())
    }
}
