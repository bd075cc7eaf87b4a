import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0).
///
/// The session ends at once only when a valid `id_token_hint` from this server names the user signed in on
/// this browser and was issued to a client that still exists. Otherwise the user is asked to confirm, so
/// a page holding some ID token (its own, or one leaked from anyone) cannot sign people out behind their
/// back. `post_logout_redirect_uri` must be registered for the client (exactly, or a loopback one on any port), or
/// the user stays on Gatehouse's page.
struct EndSessionController: Sendable {
    let clients: ClientStore
    let sessions: BrowserSessionStore
    /// Verifies `id_token_hint`.
    let keys: SigningKeyRing
    /// What `id_token_hint` must name as its issuer.
    let issuer: String
    let cookies: CookieSettings
    /// The language of the pages.
    let localizer: Localizer

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/logout") { request, _ in try await endSession(request) }
        router.post("/logout") { request, _ in try await endSession(request) }
    }

    func endSession(_ request: Request) async throws -> Response {
        let parameters: FormParameters
        do {
            parameters = request.method == .post ? try await FormParameters.body(of: request) : FormParameters(encoded: request.uri.query ?? "")
        } catch {
            return PageRenderer.error("page.invalid_request.title", "page.sign_out.unreadable", wording: localizer.wording(for: request))
        }
        let wording = localizer.wording(for: request, requested: parameters["ui_locales"].map(AuthorizationRequest.languageTags))
        var clientID = parameters["client_id"]
        var hintedUser: String?
        if let hint = parameters["id_token_hint"] {
            guard let claims = try? await keys.verify(hint, as: IDTokenClaims.self), claims.iss == issuer else {
                return PageRenderer.error("page.sign_out.invalid", "page.sign_out.foreign_hint", wording: wording)
            }
            if let clientID, clientID != claims.aud {
                return PageRenderer.error("page.sign_out.invalid", "page.sign_out.client_mismatch", wording: wording)
            }
            clientID = claims.aud
            if try await clients.find(id: claims.aud) != nil { hintedUser = claims.sub }
        }
        let redirectURI = parameters["post_logout_redirect_uri"]
        if let redirectURI {
            guard let clientID, let client = try await clients.find(id: clientID),
                client.allowsPostLogoutRedirect(to: redirectURI)
            else {
                return PageRenderer.error("page.sign_out.invalid", "page.sign_out.unregistered_return", wording: wording)
            }
        }

        let sessionID = cookies.value(cookies.sessionName, in: request)
        let session = if let sessionID { try await sessions.find(id: sessionID) } else { BrowserSession?.none }
        let hintNamesThisBrowser = hintedUser != nil && hintedUser == session?.userID
        let confirmed = request.method == .post && parameters["confirm"] == "yes" && csrfIsValid(parameters, request)
        guard hintNamesThisBrowser || confirmed || (session == nil && hintedUser != nil) else {
            return confirmationPage(parameters: parameters, clientID: clientID, request: request, wording: wording)
        }

        let ended = if let sessionID { try await sessions.end(id: sessionID) } else { BrowserSessionStore.Ended?.none }
        let frames = try await frontChannelFrames(of: ended)
        let destination = redirectURI.map { Redirect.url($0, adding: [("state", parameters["state"])]) }
        var response: Response
        if frames.isEmpty, let destination {
            response = Redirect.to(destination, afterPost: request.method == .post)
        } else {
            // Clients with a front-channel logout URI are signed out in frames of the signed-out page, which then goes on
            // to the client that asked (at once with a script-free refresh, or by its link).
            var values: [String: Any] = [
                "frames": frames.map { ["url": $0.url, "name": $0.name, "frameTitle": wording("logout.frame", ["application": $0.name]).text] }
            ]
            if let destination { values["continue"] = destination }
            response = PageRenderer.page(title: wording("logout.done.title").text, template: "signed-out", values, wording: wording)
            if !frames.isEmpty {
                response.headers[.contentSecurityPolicy] = ContentSecurityPolicy.framing(frames.map(\.origin))
            }
        }
        response.headers.append(cookies.clearCookie(cookies.sessionName))
        response.headers.append(cookies.clearCookie(cookies.logoutName))
        return response
    }

    /// The front-channel logout pages of the clients the ended session signed in to (Front-Channel Logout 1.0 §2), with
    /// `iss` and `sid` so each client can tell which of its sessions ends.
    private func frontChannelFrames(of ended: BrowserSessionStore.Ended?) async throws -> [(url: String, origin: String, name: String)] {
        guard let ended else { return [] }
        var frames: [(url: String, origin: String, name: String)] = []
        for clientID in ended.clientIDs {
            guard let client = try await clients.find(id: clientID), let uri = client.frontchannelLogoutURI,
                let components = URLComponents(string: uri), let scheme = components.scheme, let host = components.host,
                // A self-registered client's page is framed only where its registration would be accepted today.
                client.registeredByOperator || ClientMetadataRules.reachesOnlyThePublicWeb(uri)
            else { continue }
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let origin = scheme + "://" + bracketed + (components.port.map { ":\($0)" } ?? "")
            frames.append((Redirect.url(uri, adding: [("iss", issuer), ("sid", ended.sid)]), origin, client.name ?? client.id))
        }
        return frames
    }

    private func csrfIsValid(_ parameters: FormParameters, _ request: Request) -> Bool {
        cookies.formTokenMatches(cookies.logoutName, parameters, in: request)
    }

    private func confirmationPage(parameters: FormParameters, clientID: String?, request: Request, wording say: Wording) -> Response {
        let token = cookies.value(cookies.logoutName, in: request) ?? SecureRandom.token()
        // What the request named goes back with the confirmation.
        var hidden = ["post_logout_redirect_uri", "state", "ui_locales"].compactMap { name in parameters[name].map { ["name": name, "value": $0] } }
        if let clientID { hidden.append(["name": "client_id", "value": clientID]) }
        var response = PageRenderer.page(
            title: say("logout.title").text, template: "sign-out",
            ["csrfToken": token, "hidden": hidden, "question": say("logout.question", ["product": say.brand.name]).text], wording: say)
        response.headers.append(cookies.setCookie(cookies.logoutName, token, maxAge: 900))
        return response
    }
}
