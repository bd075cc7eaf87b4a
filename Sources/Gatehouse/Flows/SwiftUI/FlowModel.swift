#if canImport(Observation)
import Observation

/// A flow as observable state for SwiftUI (iOS 17, macOS 14; `FlowObservableModel` is the same for iOS 16): bind
/// the view to ``screen``, call ``FlowScreenModel/start(_:loginHint:)``, then one of the actions whenever the person
/// presses a button: ``FlowScreenModel/submit(_:)`` for any button of the node, ``FlowScreenModel/follow(_:)`` for a
/// link to another flow, ``FlowScreenModel/signIn(with:browser:)`` for another identity provider,
/// ``FlowScreenModel/usePasskey(with:)`` for a passkey.
///
/// ```swift
/// @State private var flow = FlowModel(client: gatehouse)
/// var body: some View {
///     if let step = flow.screen.step {
///         NodeView(step: step, screen: flow.screen) { action in Task { await flow.submit(action) } }
///     }
///     ...
///     .task { await flow.start() }
/// }
/// ```
/// <doc:RenderingNodes> shows a view hierarchy that renders any node.
@available(iOS 17, macOS 14, *)
@MainActor
@Observable
public final class FlowModel: FlowScreenModel {
    public var screen = FlowScreen()
    public let client: GatehouseClient

    /// A model that runs flows with `client`; call ``FlowScreenModel/start(_:loginHint:)`` to show the first node.
    public init(client: GatehouseClient) {
        self.client = client
    }

    /// The step to show and edit, while the flow waits for the person.
    public var step: ContinueNode? {
        get { screen.step }
        set { screen.step = newValue }
    }
    /// What went wrong with the last submission, to show above the form.
    public var errorMessage: String? { screen.errorMessage }
    /// Why the flow ended without signing in; start again to begin a new one.
    public var failure: GatehouseError? { screen.failure }
    /// The signed-in user once the flow succeeded.
    public var user: UserSession? { screen.user }
    /// Who signed in.
    public var claims: IDTokenClaims? { screen.claims }
    /// Whether a request is under way (disable the buttons).
    public var isWorking: Bool { screen.isWorking }
}
#endif
