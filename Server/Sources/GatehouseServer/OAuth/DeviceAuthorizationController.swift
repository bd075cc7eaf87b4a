import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// The device authorization endpoint (RFC 8628 §3.1–3.2): a TV or a terminal asks for a pair of codes, shows the user
/// code with the `/device` page's address, and polls the token endpoint with the device code.
struct DeviceAuthorizationController: Sendable {
    let clients: ClientStore
    let authenticator: ClientAuthenticator
    let deviceAuthorizations: DeviceAuthorizationStore
    /// Seconds a device code lives (`token_lifetimes.device_code`).
    let codeLifetime: Int64
    /// Seconds a device waits between polls (`token_lifetimes.device_poll_interval`).
    let pollInterval: Int64
    /// The base of the verification page's URL.
    let issuer: String
    let clock: UnixClock

    /// The token endpoint's grant type for a device's polls (RFC 8628 §3.4).
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/device_authorization") { request, _ in try await start(request) }
    }

    func start(_ request: Request) async throws -> Response {
        let parameters = try await FormParameters.body(of: request)
        let client = try await authenticator.authenticate(request, parameters: parameters, path: "/device_authorization")
        if let repeated = parameters.repeatedName {
            throw OAuthError.invalidRequest("The parameter \(repeated) appears more than once.")
        }
        try Self.requireGrant(client)
        if parameters["resource"] != nil {
            throw OAuthError(.invalidTarget, "A device sign-in cannot name resources yet; ask for the server's own scopes.")
        }
        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        if let error = AuthorizationController.scopeError(scopes, client: client) { throw error }
        let started = try await deviceAuthorizations.start(clientID: client.id, scopes: scopes, lifetime: codeLifetime, interval: pollInterval)
        let page = Self.verificationURI(issuer: issuer)
        return JSONResponse.make(
            DeviceAuthorizationResponse(
                deviceCode: started.deviceCode, userCode: started.userCode, verificationURI: page,
                verificationURIComplete: Self.verificationURI(issuer: issuer, userCode: started.userCode),
                expiresIn: Int(started.expiresAt - clock.now()), interval: Int(started.interval)))
    }

    /// The page where users type a code; with `userCode`, the page with it filled in (for a QR code or a link).
    static func verificationURI(issuer: String, userCode: String? = nil) -> String {
        guard let userCode else { return issuer + "/device" }
        return issuer + "/device?user_code=" + userCode
    }

    /// Only a client the operator allowed may use the grant (`gatehouse clients add --device-grant`).
    static func requireGrant(_ client: Client) throws {
        guard client.allowsDeviceGrant else {
            throw OAuthError.unauthorizedClient("This client may not use the device authorization grant; an operator can allow it (device_grant).")
        }
    }
}
