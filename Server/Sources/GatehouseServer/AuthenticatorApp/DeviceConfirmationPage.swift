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
    /// The language of the pages.
    let localizer: Localizer

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/authenticator/confirm") { request, _ in
            let query = FormParameters(encoded: request.uri.query ?? "")
            guard let id = query["identity"], let code = query["code"], let identity = try await deviceIdentities.find(id: id),
                identity.state == .registrationStarted
            else { return expired(request) }
            let say = localizer.wording(for: request)
            let asks =
                if let name = identity.deviceName {
                    say("device_confirm.asks.named", ["device": name, "service": serverName, "email": identity.email])
                } else {
                    say("device_confirm.asks.default", ["service": serverName, "email": identity.email])
                }
            let values: [String: Any] = ["asks": asks.text, "identity": id, "code": code]
            return PageRenderer.page(title: say("device_confirm.title").text, template: "device-confirm", values, wording: say)
        }
        router.post("/authenticator/confirm") { request, context in
            guard let form = try? await FormParameters.body(of: request), let id = form["identity"], let code = form["code"],
                let identity = try await deviceIdentities.find(id: id), identity.state == .registrationStarted
            else { return expired(request) }
            let say = localizer.wording(for: request)
            do {
                try await authenticator.confirm(identity, code: code, source: ClientAddress(of: request, context: context, trusting: proxies))
            } catch let error as OAuthError {
                return PageRenderer.error("device_confirm.failed.title", "device_confirm.failed.message", ["reason": error.description], wording: say)
            }
            return PageRenderer.page(title: say("device_confirm.done.title").text, template: "device-confirmed", [:], wording: say)
        }
    }

    private func expired(_ request: Request) -> Response {
        PageRenderer.error("device_confirm.expired.title", "device_confirm.expired.message", wording: localizer.wording(for: request))
    }
}
