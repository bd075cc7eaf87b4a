#if canImport(Combine)
import Combine

/// ``FlowModel`` for iOS 16 and macOS 13, as an `ObservableObject`: bind with `@StateObject` and read ``screen``.
/// Its methods are ``FlowScreenModel``'s, shared with ``FlowModel`` and tested on every platform; this class only
/// publishes the screen.
@MainActor
public final class FlowObservableModel: ObservableObject, FlowScreenModel {
    @Published public var screen = FlowScreen()
    public let client: GatehouseClient

    /// A model that runs flows with `client`; call ``FlowScreenModel/start(_:loginHint:)`` to show the first node.
    public init(client: GatehouseClient) {
        self.client = client
    }
}
#endif
