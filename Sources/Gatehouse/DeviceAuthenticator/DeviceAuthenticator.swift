import Crypto
import Foundation
import GatehouseProtocol

/// The authenticator app's side of Gatehouse: registers device identities, keeps them, and approves sign-ins
/// with a PIN, from a QR code (``approve(_:pin:)``) or directly in the app (``signIn(with:pin:client:)``).
///
/// ```swift
/// let authenticator = DeviceAuthenticator(app: AuthenticatorApp(name: "com.example.auth", version: "1.0.0"),
///                                         storage: KeychainTokenStorage())
/// let payload = try QRLoginPayload(parsing: scannedText)
/// let service = try await authenticator.service(at: payload.serviceURL)
/// let registration = try await authenticator.register(at: service, email: "alice@example.com", deviceName: "Alice's phone")
/// try await authenticator.confirm(registration.id, code: codeFromEmail)
/// try await authenticator.setPIN("4711", for: registration.id)
/// let request = try await authenticator.begin(payload, identityID: registration.id)   // shows request.clientName
/// try await authenticator.approve(request, pin: "4711")
/// ```
///
/// The PIN never leaves the device and nothing stored on it lets anyone check a PIN guess: every guess needs the
/// server, which counts it. See the "Device authenticator protocol" article.
public actor DeviceAuthenticator {
    /// The app's identity: its client id, name and version, sent with every request.
    public let app: AuthenticatorApp
    /// The services this app serves, by URL (what a QR code names before `#`): codes and pushes from any other are
    /// refused with ``DeviceAuthenticatorError/untrustedService(_:)`` before anything is sent. `nil` trusts any service
    /// the person scans, as a general-purpose authenticator does.
    public let trustedServices: [URL]?
    private let storage: any TokenStorage
    let connection: AuthenticatorConnection

    /// The storage account the identities are kept under.
    public static let storageAccount = "gatehouse.device-identities"

    /// - Parameters:
    ///   - app: how the app names itself to services.
    ///   - storage: where identities are kept (``EncryptedFileTokenStorage`` on Linux, `KeychainTokenStorage` on Apple platforms).
    ///   - transport: how requests reach the service; `URLSession` unless a test or an app brings its own.
    ///   - timeout: seconds one request may take.
    ///   - trustedServices: the only service URLs to talk to, for an app made for one company; `nil` for any.
    public init(
        app: AuthenticatorApp, storage: any TokenStorage, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        trustedServices: [URL]? = nil
    ) {
        self.app = app
        self.trustedServices = trustedServices
        self.storage = storage
        connection = AuthenticatorConnection(app: app, transport: transport, timeout: timeout)
    }

    // MARK: Services

    /// Reads and checks the description at a service URL.
    /// - Throws: ``DeviceAuthenticatorError/appNotAllowed`` (406), ``DeviceAuthenticatorError/updateRequired(minimumVersion:)`` (412),
    ///   ``DeviceAuthenticatorError/invalidServiceDescription(_:)`` when the answer lacks what the app needs.
    ///   ``DeviceAuthenticatorError/untrustedService(_:)`` for a service outside ``trustedServices``.
    public func service(at url: URL) async throws(DeviceAuthenticatorError) -> AuthenticatorService {
        try checkTrusted(url)
        let (data, _) = try await connection.raw("GET", url.absoluteString)
        let description: AuthenticatorServiceDescription
        do {
            description = try JSONDecoder().decode(AuthenticatorServiceDescription.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw .invalidServiceDescription("\(key.stringValue) is missing")
        } catch {
            throw .invalidServiceDescription("the answer is not a service description")
        }
        return try AuthenticatorService(url: url, description: description)
    }

    // MARK: Identities

    /// Every identity on this device, newest first.
    public func identities() async throws(DeviceAuthenticatorError) -> [DeviceIdentityRecord] {
        try await load().sorted { $0.createdAt > $1.createdAt }
    }

    /// The stored identity `id`.
    public func identity(_ id: String) async throws(DeviceAuthenticatorError) -> DeviceIdentityRecord {
        guard let record = try await load().first(where: { $0.id == id }) else { throw .unknownIdentity }
        return record
    }

    /// Deletes identity `id` at its service (when the service can be reached and still knows it) and on the device.
    public func delete(_ id: String) async throws(DeviceAuthenticatorError) {
        let record = try await identity(id)
        do {
            try await connection.raw("DELETE", endpoint(record, \.identity), secret: record.deviceSecret)
        } catch .unknownIdentity {
            // Gone at the service already (an expired registration, or an administrator removed it).
        } catch .network(let reason) {
            throw .network(reason)
        } catch {
            // A blocked identity or an outdated app may still be removed from this device.
        }
        try await save(try await load().filter { $0.id != id })
    }

    /// Asks the service where identity `id` stands and stores the answer (e.g. after confirming by link, or to learn it was blocked).
    @discardableResult
    public func refresh(_ id: String) async throws(DeviceAuthenticatorError) -> DeviceIdentityRecord {
        var record = try await identity(id)
        let status = try await connection.send("GET", endpoint(record, \.identity), secret: record.deviceSecret, as: DeviceIdentityStatus.self)
        record.state = DeviceIdentityRecord.State(rawValue: status.state) ?? record.state
        if let key = status.oprfPublicKey.flatMap(Base64URL.decode) { record.oprfPublicKey = key }
        if let username = status.username { record.username = username }
        try await store(record)
        return record
    }

    // MARK: Registration

    /// Starts registering a new identity for the account with `email`; the service sends a code (or link) there.
    /// - Throws: ``DeviceAuthenticatorError/duplicateIdentity(_:)`` when this device already has an identity (registered,
    ///   or being registered) for that address at that service: one is enough, and a second would split the account's
    ///   approvals between two PINs. A blocked one does not count.
    public func register(at service: AuthenticatorService, email: String, deviceName: String?) async throws(DeviceAuthenticatorError) -> DeviceIdentityRecord {
        try checkTrusted(service.url)
        let address = email.trimmingCharacters(in: .whitespaces).lowercased()
        if let existing = try await load().first(where: {
            $0.serviceURL == service.url && $0.email.lowercased() == address && $0.state != .blocked
        }) {
            throw .duplicateIdentity(existing.id)
        }
        let started = try await connection.send(
            "POST", service.description.endpoints.registration,
            body: DeviceRegistrationRequest(email: email, deviceName: deviceName), as: DeviceRegistrationStarted.self)
        let record = DeviceIdentityRecord(
            id: started.identityID, serviceURL: service.url, serviceName: service.name, issuer: service.description.issuer, email: email,
            username: nil, deviceName: deviceName, state: .registrationStarted, pinLength: service.description.pinLength, createdAt: Date(),
            deviceSecret: started.deviceSecret, endpoints: service.description.endpoints, oprfPublicKey: nil, sealedSigningKey: nil
        )
        try await store(record)
        return record
    }

    /// Sends a new verification code (or link); the earlier one stops working.
    public func resendVerification(_ id: String) async throws(DeviceAuthenticatorError) {
        let record = try await identity(id)
        try await connection.raw("POST", endpoint(record, \.registration) + "/resend", body: Optional<String>.none, secret: record.deviceSecret)
    }

    /// Confirms the registration with the code from the email.
    public func confirm(_ id: String, code: String) async throws(DeviceAuthenticatorError) {
        var record = try await identity(id)
        let status = try await connection.send(
            "POST", endpoint(record, \.registration) + "/verification",
            body: DeviceVerificationRequest(code: code), secret: record.deviceSecret, as: DeviceIdentityStatus.self)
        record.state = .verified
        record.oprfPublicKey = status.oprfPublicKey.flatMap(Base64URL.decode)
        try await store(record)
    }

    /// Chooses the PIN and completes the registration: a new signing key, sealed under the PIN's PRF output,
    /// whose public half goes to the service.
    @discardableResult
    public func setPIN(_ pin: String, for id: String) async throws(DeviceAuthenticatorError) -> DeviceIdentityRecord {
        var record = try await identity(id)
        guard PINProtocol.isWellFormed(pin, length: record.pinLength) else { throw .malformedPIN(length: record.pinLength) }
        if record.state != .verified || record.oprfPublicKey == nil { record = try await refresh(id) }
        guard record.state == .verified, let serverKey = record.oprfPublicKey else {
            throw .wrongState(StringCatalog.text("device.state.confirm_email_first", languages: ["en"]))
        }
        let credential = try PINCredential(identityID: id, oprfPublicKey: serverKey)
        let blinded = try credential.blind(pin)
        let evaluation = try await connection.send(
            "POST", endpoint(record, \.registration) + "/pin-evaluation",
            body: PINEvaluationRequest(blindedElement: Base64URL.encode(blinded.blindedElement.oprfRepresentation)),
            secret: record.deviceSecret, as: PINEvaluation.self)
        let signingKey = P256.Signing.PrivateKey()
        let sealed = try credential.seal(signingKey, with: try credential.sealingKey(blinded, evaluation: evaluation.evaluation))
        let status = try await connection.send(
            "POST", endpoint(record, \.registration) + "/activation",
            body: DeviceActivationRequest(publicKey: Base64URL.encode(signingKey.publicKey.x963Representation)),
            secret: record.deviceSecret, as: DeviceIdentityStatus.self)
        record.sealedSigningKey = sealed
        record.state = .registered
        record.username = status.username
        try await store(record)
        return record
    }

    /// Refuses a service outside ``trustedServices``, compared by scheme, host, port and path.
    func checkTrusted(_ url: URL) throws(DeviceAuthenticatorError) {
        guard let trustedServices else { return }
        let key = { (url: URL) -> [String] in [url.scheme?.lowercased() ?? "", url.host?.lowercased() ?? "", url.port.map(String.init) ?? "", url.path] }
        guard trustedServices.contains(where: { key($0) == key(url) }) else { throw .untrustedService(url.host ?? url.absoluteString) }
    }

    // MARK: Storage

    func endpoint(_ record: DeviceIdentityRecord, _ path: KeyPath<AuthenticatorEndpoints, String>) -> String {
        record.endpoints[keyPath: path]
    }

    func store(_ record: DeviceIdentityRecord) async throws(DeviceAuthenticatorError) {
        var records = try await load().filter { $0.id != record.id }
        records.append(record)
        try await save(records)
    }

    private func load() async throws(DeviceAuthenticatorError) -> [DeviceIdentityRecord] {
        do {
            guard let bytes = try await storage.read(account: Self.storageAccount) else { return [] }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode([DeviceIdentityRecord].self, from: Data(bytes))
        } catch {
            throw .storage(ErrorCause(error))
        }
    }

    private func save(_ records: [DeviceIdentityRecord]) async throws(DeviceAuthenticatorError) {
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            try await storage.write(Array(try encoder.encode(records)), account: Self.storageAccount)
        } catch {
            throw .storage(ErrorCause(error))
        }
    }
}
