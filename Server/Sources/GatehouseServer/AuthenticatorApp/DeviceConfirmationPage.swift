import GatehouseDomain
import GatehouseProtocol
import Hummingbird

/// The page the verification link opens (policy `verification: link`): it asks before confirming, so a mail
/// scanner that follows links cannot confirm a device by itself. The code in the link is the form's secret.
struct DeviceConfirmationPage: Sendable {
    let deviceIdentities: DeviceIdentityStore
    /// Confirms the device, with the app API's code checks.
    let authenticator: AuthenticatorController
    /// How the page names this server (its host).
    let serverName: String
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/authenticator/confirm") { request, _ in
            let query = FormParameters(encoded: request.uri.query ?? "")
            guard let id = query["identity"], let code = query["code"], let identity = try await deviceIdentities.find(id: id),
                identity.state == .registrationStarted
            else { return Self.expired }
            var values: [String: Any] = ["serviceName": serverName, "email": identity.email, "identity": id, "code": code]
            if let name = identity.deviceName { values["deviceName"] = name }
            return PageRenderer.page(title: "Confirm your new device", template: "device-confirm", values)
        }
        router.post("/authenticator/confirm") { request, context in
            guard let form = try? await FormParameters.body(of: request), let id = form["identity"], let code = form["code"],
                let identity = try await deviceIdentities.find(id: id), identity.state == .registrationStarted
            else { return Self.expired }
            do {
                try await authenticator.confirm(identity, code: code, source: ClientAddress(of: request, context: context, trusting: proxies))
            } catch let error as OAuthError {
                return PageRenderer.error(title: "Device not confirmed", message: error.description + " Start the registration again in the app.")
            }
            return PageRenderer.page(title: "Device confirmed", template: "device-confirmed", [:])
        }
    }

    private static var expired: Response {
        PageRenderer.error(title: "Link expired", message: "This confirmation link has expired or was used already. Start the registration again in the app.")
    }
}
