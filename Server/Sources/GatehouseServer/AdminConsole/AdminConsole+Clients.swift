import Foundation
import GatehouseDomain
import GatehouseFoundation
import HTTPTypes
import Hummingbird

/// The console's clients and signing keys: listed; a client made with the tool's validation, its secret shown once (and
/// again once on each rotation), or deleted; the keys rotated.
extension AdminConsole {
    func clientsPage(_ person: Operator, problem: String? = nil, status: HTTPResponse.Status = .badRequest) async throws -> Response {
        var values = values(person, section: "Clients")
        values["clients"] = try await operations(person).clients().map { client -> [String: Any] in
            var shown: [String: Any] = [
                "id": client.id, "kind": client.isPublic ? "public" : "confidential", "redirectURIs": client.redirectURIs.joined(separator: " "),
                "confidential": !client.isPublic, "created": Timestamp.format(client.createdAt),
            ]
            if let name = client.name { shown["name"] = name }
            return shown
        }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Clients · Admin console", template: "admin-clients", values, status: problem == nil ? .ok : status)
    }

    /// Makes the client the form describes; its generated secret is on the answer, never stored in clear.
    func createClient(_ form: FormParameters, by person: Operator) async throws -> Response {
        let registration = ClientRegistration(
            id: Self.text(form, "id") ?? "", name: Self.text(form, "name"), redirectURIs: Self.list(form, "redirect_uris"), isPublic: form["public"] == "on")
        do {
            let created = try await operations(person).createClient(registration)
            return secretShown(person, clientID: created.client.id, secret: created.generatedSecret, made: true)
        } catch let problem as AdminProblem {
            return try await clientsPage(person, problem: problem.detail, status: Self.status(of: problem))
        } catch let problem as ConfigurationError {
            return try await clientsPage(person, problem: problem.description)
        }
    }

    /// One client: its settings, with a form for those a person edits here (the rest through the admin API).
    func clientPage(
        _ clientID: String, _ person: Operator, notice: String? = nil, problem: String? = nil, status: HTTPResponse.Status = .badRequest
    ) async throws -> Response {
        guard let client = try? await AdminClient(operations(person).registeredClient(clientID)) else {
            return PageRenderer.error(title: "Not found", message: "There is no client with that id.", status: .notFound)
        }
        var values = values(person, section: "Clients")
        var shown: [String: Any] = [
            "id": client.id, "name": client.name ?? "", "kind": client.isPublic ? "public" : "confidential", "confidential": !client.isPublic,
            "redirectURIs": client.redirectURIs.joined(separator: "\n"), "postLogoutRedirectURIs": client.postLogoutRedirectURIs.joined(separator: "\n"),
            "scopes": client.scopes.joined(separator: " "), "algorithm": client.idTokenAlgorithm, "authentication": client.authenticationMethod.rawValue,
            "thirdParty": client.thirdParty, "deviceGrant": client.deviceGrant, "requireDPoP": client.requireDPoP,
            "created": Timestamp.format(client.createdAt), "logo": client.logoURI ?? "", "homepage": client.homepage ?? "",
        ]
        shown["algorithms"] = ["RS256", "ES256"].map { ["value": $0, "selected": $0 == client.idTokenAlgorithm] }
        values["client"] = shown
        values["etag"] = AdminETag.of(client)
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "\(client.id) · Admin console", template: "admin-client", values, status: problem == nil ? .ok : status)
    }

    /// Saves, rotates the secret of, or deletes the client `clientID`, as the form says.
    func changeClient(_ clientID: String, form: FormParameters, by person: Operator) async throws -> Response {
        do {
            switch form["change"] {
            case "save":
                var change = AdminClientChange()
                change.name = form.values["name"].map { $0.trimmingCharacters(in: .whitespaces) }
                change.redirectURIs = Self.list(form, "redirect_uris")
                change.postLogoutRedirectURIs = Self.list(form, "post_logout_redirect_uris")
                change.scopes = Self.list(form, "scopes")
                change.idTokenAlgorithm = form["id_token_alg"]
                change.logoURI = form.values["logo_uri"].map { $0.trimmingCharacters(in: .whitespaces) }
                change.homepage = form.values["client_uri"].map { $0.trimmingCharacters(in: .whitespaces) }
                change.thirdParty = form["third_party"] == "on"
                change.deviceGrant = form["device_grant"] == "on"
                change.requireDPoP = form["require_dpop"] == "on"
                _ = try await operations(person).updateClient(clientID, change, ifMatch: form["etag"] ?? "")
                return back(to: "/clients/" + clientID, done: "client_saved")
            case "rotate_secret":
                let secret = try await operations(person).rotateClientSecret(of: clientID)
                return secretShown(person, clientID: clientID, secret: secret, made: false)
            case "delete":
                try await operations(person).deleteClient(clientID)
                return Redirect.to(Self.path + "/clients", afterPost: true)
            default:
                return Self.unknownChange
            }
        } catch let problem as AdminProblem {
            return try await clientPage(clientID, person, problem: Self.explain(problem), status: Self.status(of: problem))
        } catch let problem as ConfigurationError {
            return try await clientPage(clientID, person, problem: problem.description)
        }
    }

    /// The page that shows a client's secret this once (never cached; a reload does not show it again).
    private func secretShown(_ person: Operator, clientID: String, secret: String?, made: Bool) -> Response {
        var values = values(person, section: "Clients")
        values["clientID"] = clientID
        values["made"] = made
        if let secret { values["secret"] = secret }
        return PageRenderer.page(title: "\(clientID) · Admin console", template: "admin-client-secret", values)
    }
}
