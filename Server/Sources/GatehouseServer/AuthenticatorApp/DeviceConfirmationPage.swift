import GatehouseProtocol
import Hummingbird

/// The page the verification link opens (policy `verification: link`): it asks before confirming, so a mail
/// scanner that follows links cannot confirm a device by itself. The code in the link is the form's secret.
struct DeviceConfirmationPage: Sendable {
    let server: IdentityServer

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/authenticator/confirm") { request, _ in
            let query = FormParameters(encoded: request.uri.query ?? "")
            guard let id = query["identity"], let code = query["code"], let identity = try await server.deviceIdentities.find(id: id),
                identity.state == .registrationStarted
            else { return Self.expired }
            let name = identity.deviceName.map { " (\(HTML.escape($0)))" } ?? ""
            let body = """
                <h1>Confirm your new device</h1>
                <p class="hint">An authenticator app\(name) asks to sign in to \(HTML.escape(server.serviceName)) as \(HTML.escape(identity.email)).
                Confirm only if you are setting it up right now.</p>
                <form method="post" action="/authenticator/confirm">
                <input type="hidden" name="identity" value="\(HTML.escape(id))">
                <input type="hidden" name="code" value="\(HTML.escape(code))">
                <button type="submit">Confirm this device</button>
                </form>
                """
            return PageRenderer.page(title: "Confirm your new device", body: body)
        }
        router.post("/authenticator/confirm") { request, context in
            guard let form = try? await FormParameters.body(of: request), let id = form["identity"], let code = form["code"],
                let identity = try await server.deviceIdentities.find(id: id), identity.state == .registrationStarted
            else { return Self.expired }
            do {
                try await AuthenticatorController(server: server).confirm(identity, code: code, source: server.clientAddress(of: request, context: context))
            } catch let error as OAuthError {
                return PageRenderer.error(title: "Device not confirmed", message: error.description + " Start the registration again in the app.")
            }
            return PageRenderer.page(
                title: "Device confirmed",
                body: """
                    <h1>Device confirmed</h1>
                    <p class="hint">Go back to the app to choose your PIN.</p>
                    """)
        }
    }

    private static var expired: Response {
        PageRenderer.error(title: "Link expired", message: "This confirmation link has expired or was used already. Start the registration again in the app.")
    }
}
