import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The signed-in person's own account, through the provider's account API (`/account/v1`): the profile and password,
/// the applications they allowed, where they are signed in, their passkeys, authenticator apps and other providers,
/// recent security events, and deleting the account. The session's tokens must carry the `account` scope (ask for it in ``GatehouseConfiguration/scopes``).
///
/// Sensitive changes (the password; removing a passkey, an authenticator app or a provider; deleting the account) need
/// a recent sign-in. When the provider refuses one
/// for an old sign-in, the client calls ``stepUp`` with what it asked for; sign the person in again there (drive
/// ``UserSession/stepUp(acrValues:maxAge:)``, or ``UserSession/stepUp(using:acrValues:maxAge:)`` in a browser) and
/// return: the change is retried once with the new tokens.
///
/// ```swift
/// let account = AccountClient(session: session) { needed in
///     try await signInAgain(session.stepUp(acrValues: needed.acrValues, maxAge: needed.maxAge))
/// }
/// print(try await account.profile().email)
/// try await account.deleteAccount()
/// ```
public struct AccountClient: Sendable {
    /// Signs the person in again when a change needs a more recent sign-in; throwing abandons the change.
    public typealias StepUpHandler = @Sendable (AccountStepUp) async throws -> Void

    /// The signed-in session whose account this is; its access token is sent with every request.
    public let session: UserSession
    /// Called when a change needs a more recent sign-in; without it such a change throws
    /// ``GatehouseError/provider(status:error:description:)`` with `insufficient_user_authentication`.
    public var stepUp: StepUpHandler?

    /// The account of `session`'s user, with `stepUp` to sign the person in again when a change asks for it.
    public init(session: UserSession, stepUp: StepUpHandler? = nil) {
        self.session = session
        self.stepUp = stepUp
    }

    /// The account.
    public func profile() async throws -> AccountProfile {
        try await decode(AccountProfile.self, from: send("GET", ""))
    }

    /// Changes the names on the profile: `nil` leaves one as it is, an empty text clears it.
    @discardableResult
    public func updateNames(name: String? = nil, givenName: String? = nil, familyName: String? = nil) async throws -> AccountProfile {
        var body: [String: String] = [:]
        body["name"] = name
        body["given_name"] = givenName
        body["family_name"] = familyName
        return try await decode(AccountProfile.self, from: send("PATCH", "", body: body))
    }

    /// Sends a code to a new email address (one another account proved gets a notice instead; the answer is the same).
    /// Needs a recent sign-in. Returns the address as the provider understood it.
    @discardableResult
    public func requestEmailChange(to address: String) async throws -> String {
        try await requestChange("email", member: "email", to: address)
    }

    /// Makes the new email address the account's with the code sent to it; the old one is told.
    @discardableResult
    public func confirmEmailChange(to address: String, code: String) async throws -> AccountProfile {
        try await confirmChange("email", member: "email", to: address, code: code)
    }

    /// Sends a code by text message to a new phone number. Needs a recent sign-in. Returns the number in E.164 form.
    @discardableResult
    public func requestPhoneChange(to number: String) async throws -> String {
        try await requestChange("phone", member: "phone_number", to: number)
    }

    /// Makes the new phone number the account's with the code sent to it; the old one and the email address are told.
    @discardableResult
    public func confirmPhoneChange(to number: String, code: String) async throws -> AccountProfile {
        try await confirmChange("phone", member: "phone_number", to: number, code: code)
    }

    /// The third-party applications the person allowed, and what.
    public func consents() async throws -> [AccountConsent] {
        try await decode(Items<AccountConsent>.self, from: send("GET", "/consents")).items
    }

    /// Revokes what the person allowed `clientID`; every token it holds for them stops working.
    public func revokeConsent(clientID: String) async throws {
        _ = try await send("DELETE", "/consents/" + Self.pathComponent(clientID))
    }

    /// Where the person is signed in.
    public func sessions() async throws -> AccountSessions {
        try await decode(AccountSessions.self, from: send("GET", "/sessions"))
    }

    /// Signs a browser out (``AccountSessions/BrowserSession/id``).
    public func endSession(id: String) async throws {
        _ = try await send("DELETE", "/sessions/" + Self.pathComponent(id))
    }

    /// The newest security events of the account, up to `limit` (1 to 1000).
    public func events(limit: Int = 20) async throws -> [AccountEvent] {
        try await decode(Items<AccountEvent>.self, from: send("GET", "/events?limit=\(limit)")).items
    }

    /// Changes the password: `current` is checked like a sign-in's, `new` against the provider's policy. Every
    /// session and token of the account ends, this one's too (it is forgotten here): sign in again with the new
    /// password. Needs a recent sign-in.
    public func changePassword(current: String, new: String) async throws {
        _ = try await send("POST", "/password", body: ["current_password": current, "new_password": new])
        try? await session.logout()
    }

    /// The other providers the person signs in with.
    public func identities() async throws -> [AccountIdentity] {
        try await decode(Items<AccountIdentity>.self, from: send("GET", "/identities")).items
    }

    /// Unlinks another provider (never the account's last way to sign in). Needs a recent sign-in.
    public func unlinkIdentity(provider: String) async throws {
        _ = try await send("DELETE", "/identities/" + Self.pathComponent(provider))
    }

    /// Ends an application's sign-in (``AccountSessions/AppSignIn/id``): every token it holds from it is revoked.
    public func endAppSignIn(id: String) async throws {
        _ = try await send("DELETE", "/app-sign-ins/" + Self.pathComponent(id))
    }

    /// The authenticator apps that sign in to the account with a QR code.
    public func devices() async throws -> [AccountDevice] {
        try await decode(Items<AccountDevice>.self, from: send("GET", "/devices")).items
    }

    /// Removes an authenticator app: it no longer signs in. Needs a recent sign-in.
    public func removeDevice(id: String) async throws {
        _ = try await send("DELETE", "/devices/" + Self.pathComponent(id))
    }

    /// The account's passkeys.
    public func passkeys() async throws -> [AccountPasskey] {
        try await decode(Items<AccountPasskey>.self, from: send("GET", "/passkeys")).items
    }

    /// Removes a passkey (never the account's last way to sign in). Needs a recent sign-in.
    public func removePasskey(id: String) async throws {
        _ = try await send("DELETE", "/passkeys/" + Self.pathComponent(id))
    }

    /// Deletes the account: its tokens (this session's too), sessions, factors and consents go with it. Needs a
    /// recent sign-in. The session is forgotten afterwards.
    public func deleteAccount() async throws {
        _ = try await send("DELETE", "")
        try? await session.logout()
    }

    private struct Items<Item: Decodable & Sendable>: Decodable, Sendable {
        var items: [Item]
    }

    /// Asks for a code to a new email address or phone number (`kind`), sent as `member`.
    private func requestChange(_ kind: String, member: String, to value: String) async throws -> String {
        try await decode(CodeSent.self, from: send("POST", "/" + kind, body: [member: value])).sentTo
    }

    /// Confirms a new email address or phone number (`kind`) with its code.
    private func confirmChange(_ kind: String, member: String, to value: String, code: String) async throws -> AccountProfile {
        try await decode(AccountProfile.self, from: send("POST", "/\(kind)/verification", body: [member: value, "code": code]))
    }

    private struct CodeSent: Decodable, Sendable {
        var sentTo: String

        enum CodingKeys: String, CodingKey { case sentTo = "sent_to" }
    }

    /// Sends a request to `/account/v1` + `path` and answers its body; a refusal for an old sign-in goes through
    /// ``stepUp`` and is retried once.
    private func send(_ method: String, _ path: String, body: [String: String]? = nil) async throws -> Data {
        for attempt in 0..<2 {
            let url = session.configuration.issuer.appendingPathComponent("account/v1")
            guard let target = URL(string: url.absoluteString + path) else { throw GatehouseError.unexpectedResponse(status: 0) }
            var request = try session.request(target)
            request.httpMethod = method
            if let body {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = try JSONEncoder().encode(body)
            }
            let (data, response) = try await session.sendToResource(request)
            if (200..<300).contains(response.statusCode) { return data }
            let refusal = TokenClient.error(data, response)
            if attempt == 0, let stepUp, response.statusCode == 401,
                let needed = AccountStepUp(challenge: response.value(forHTTPHeaderField: "WWW-Authenticate"), description: refusal.providerDescription)
            {
                try await stepUp(needed)
                continue
            }
            throw refusal
        }
        throw GatehouseError.unexpectedResponse(status: 401)
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let value = try? decoder.decode(type, from: data) else { throw GatehouseError.unexpectedResponse(status: 200) }
        return value
    }

    /// `text` as one path segment: nothing in it can reach another path.
    private static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}

extension GatehouseError {
    /// The provider's description of a refusal, when it gave one.
    var providerDescription: String? {
        if case .provider(_, _, let description) = self { return description }
        return nil
    }
}
