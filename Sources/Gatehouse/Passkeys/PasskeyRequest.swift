import Foundation
import GatehouseProtocol

/// A passkey to create, read from the server's `PublicKeyCredentialCreationOptionsJSON`: what a platform
/// authenticator API needs, binary values decoded.
public struct PasskeyCreationRequest: Sendable, Equatable {
    /// The relying party id the passkey is bound to, e.g. `id.example.com`.
    public var relyingPartyID: String
    /// The random challenge the server will check.
    public var challenge: Data
    /// The server's random user handle for the account (never its user id).
    public var userID: Data
    /// The account's name, e.g. the username.
    public var userName: String
    /// The account's display name.
    public var displayName: String
    /// Credentials the account has: the authenticator must not make another for it.
    public var excludedCredentialIDs: [Data]
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String
    /// `none` or `direct`.
    public var attestation: String
    /// Whether the passkey should be discoverable (`required`, `preferred` or `discouraged`).
    public var residentKey: String
}

/// A passkey to use, read from the server's `PublicKeyCredentialRequestOptionsJSON`.
public struct PasskeyAssertionRequest: Sendable, Equatable {
    /// The relying party id.
    public var relyingPartyID: String
    /// The random challenge the server will check.
    public var challenge: Data
    /// The account's passkeys; empty when any discoverable passkey for the relying party may answer.
    public var allowedCredentialIDs: [Data]
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String
}

/// What a platform authenticator made: the raw values WebAuthn defines, before they become JSON.
public struct PasskeyRegistrationResult: Sendable, Equatable {
    /// The new credential's id.
    public var credentialID: Data
    /// The client data the authenticator signed, as JSON bytes.
    public var clientDataJSON: Data
    /// The CBOR attestation object.
    public var attestationObject: Data
    /// `platform` or `cross-platform`, when known.
    public var attachment: String?

    /// A result from the raw values.
    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data, attachment: String?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.attachment = attachment
    }
}

/// What a platform authenticator signed to sign in.
public struct PasskeyAssertionResult: Sendable, Equatable {
    /// The credential used.
    public var credentialID: Data
    /// The client data the authenticator signed, as JSON bytes.
    public var clientDataJSON: Data
    /// The authenticator data.
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's hash.
    public var signature: Data
    /// The user handle a discoverable passkey returns.
    public var userHandle: Data?
    /// `platform` or `cross-platform`, when known.
    public var attachment: String?

    /// A result from the raw values.
    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?, attachment: String?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.attachment = attachment
    }
}

/// Reads the server's options JSON and writes the credential JSON back, in WebAuthn's JSON forms.
enum PasskeyJSON {
    private struct Descriptor: Decodable {
        let id: String
    }

    private struct CreationOptions: Decodable {
        struct Party: Decodable { let id: String }
        struct User: Decodable {
            let id: String
            let name: String
            let displayName: String
        }
        struct Selection: Decodable {
            let residentKey: String?
            let userVerification: String?
        }
        let rp: Party
        let user: User
        let challenge: String
        let excludeCredentials: [Descriptor]?
        let authenticatorSelection: Selection?
        let attestation: String?
    }

    private struct RequestOptions: Decodable {
        let challenge: String
        let rpId: String
        let allowCredentials: [Descriptor]?
        let userVerification: String?
    }

    private static func bytes(_ text: String, _ name: String) throws(GatehouseError) -> Data {
        guard let data = Base64URL.decode(text) else { throw .unsupportedStep("the passkey options' \(name) is not base64url") }
        return data
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws(GatehouseError) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(json.utf8)) } catch {
            throw .unsupportedStep("the server's passkey options are not WebAuthn's options JSON")
        }
    }

    static func creation(_ json: String) throws(GatehouseError) -> PasskeyCreationRequest {
        let options = try decode(CreationOptions.self, json)
        var excluded: [Data] = []
        for descriptor in options.excludeCredentials ?? [] { excluded.append(try bytes(descriptor.id, "excludeCredentials")) }
        return PasskeyCreationRequest(
            relyingPartyID: options.rp.id, challenge: try bytes(options.challenge, "challenge"), userID: try bytes(options.user.id, "user.id"),
            userName: options.user.name, displayName: options.user.displayName, excludedCredentialIDs: excluded,
            userVerification: options.authenticatorSelection?.userVerification ?? "preferred", attestation: options.attestation ?? "none",
            residentKey: options.authenticatorSelection?.residentKey ?? "preferred")
    }

    static func assertion(_ json: String) throws(GatehouseError) -> PasskeyAssertionRequest {
        let options = try decode(RequestOptions.self, json)
        var allowed: [Data] = []
        for descriptor in options.allowCredentials ?? [] { allowed.append(try bytes(descriptor.id, "allowCredentials")) }
        return PasskeyAssertionRequest(
            relyingPartyID: options.rpId, challenge: try bytes(options.challenge, "challenge"), allowedCredentialIDs: allowed,
            userVerification: options.userVerification ?? "preferred")
    }

    private static func text(_ object: [String: Any]) -> String {
        // Only strings, arrays and dictionaries of them: serialization cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func json(_ result: PasskeyRegistrationResult) -> String {
        let id = Base64URL.encode(result.credentialID)
        var credential: [String: Any] = [
            "id": id, "rawId": id, "type": "public-key", "clientExtensionResults": [String: Any](),
            "response": [
                "clientDataJSON": Base64URL.encode(result.clientDataJSON), "attestationObject": Base64URL.encode(result.attestationObject),
                "transports": result.attachment == "platform" ? ["internal", "hybrid"] : [String](),
            ],
        ]
        if let attachment = result.attachment { credential["authenticatorAttachment"] = attachment }
        return text(credential)
    }

    static func json(_ result: PasskeyAssertionResult) -> String {
        let id = Base64URL.encode(result.credentialID)
        var response: [String: Any] = [
            "clientDataJSON": Base64URL.encode(result.clientDataJSON), "authenticatorData": Base64URL.encode(result.authenticatorData),
            "signature": Base64URL.encode(result.signature),
        ]
        if let handle = result.userHandle { response["userHandle"] = Base64URL.encode(handle) }
        var credential: [String: Any] = ["id": id, "rawId": id, "type": "public-key", "clientExtensionResults": [String: Any](), "response": response]
        if let attachment = result.attachment { credential["authenticatorAttachment"] = attachment }
        return text(credential)
    }
}
