import GatehouseProtocol

/// A passkey to create or to use. Hand ``optionsJSON`` to a ``PasskeyProvider`` (on Apple platforms the system's
/// passkey sheet; elsewhere a security key library), put the credential JSON it returns in ``credentialJSON``, and
/// submit the node. The options and the credential are WebAuthn's own JSON forms, passed through unchanged.
public struct PasskeyCollector: FieldCollector {
    /// Which WebAuthn ceremony the node asks for.
    public enum Ceremony: Sendable, Equatable {
        /// Make a new passkey (registration).
        case create
        /// Sign in with a passkey (authentication).
        case get
    }

    public let field: FlowField
    public let messages: [FlowMessage]
    /// The credential's JSON (`PublicKeyCredential.toJSON()`), as the provider returned it.
    public var credentialJSON = ""

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
    }

    /// Whether to create a passkey or use one.
    public var ceremony: Ceremony { field.kind == .passkeyCreate ? .create : .get }
    /// `PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`, as the server sent it.
    public var optionsJSON: String { field.defaultValue ?? "" }
    public var fieldValue: FieldValue { .text(credentialJSON) }

    /// The credential JSON `provider` makes for this ceremony: a new passkey, or an assertion with one.
    func credential(from provider: any PasskeyProvider) async throws -> String {
        ceremony == .create ? try await provider.createPasskey(optionsJSON: optionsJSON) : try await provider.usePasskey(optionsJSON: optionsJSON)
    }
}
