import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's clients and signing keys: listed; a client made with the tool's validation, its secret shown once (and
/// again once on each rotation), or deleted; the keys rotated.
extension AdminConsole {
    func clientsPage(_ person: Operator, problem: String? = nil) async throws -> Response {
        var values = values(person, section: "Clients")
        values["clients"] = try await operations(person.actor).clients().map { client -> [String: Any] in
            var shown: [String: Any] = [
                "id": client.id, "kind": client.isPublic ? "public" : "confidential", "redirectURIs": client.redirectURIs.joined(separator: " "),
                "confidential": !client.isPublic, "created": Timestamp.format(client.createdAt),
            ]
            if let name = client.name { shown["name"] = name }
            return shown
        }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Clients · Admin console", template: "admin-clients", values, status: problem == nil ? .ok : .badRequest)
    }

    /// Makes the client the form describes; its generated secret is on the answer, never stored in clear.
    func createClient(_ request: Request) async throws -> Response {
        try await submitted(request) { person, form in try await createClient(form, by: person) }
    }

    private func createClient(_ form: FormParameters, by person: Operator) async throws -> Response {
        let redirectURIs = (form["redirect_uris"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        let name = form["name"].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        let registration = ClientRegistration(
            id: (form["id"] ?? "").trimmingCharacters(in: .whitespaces), name: name, redirectURIs: redirectURIs, isPublic: form["public"] == "on")
        do {
            let created = try await operations(person.actor).createClient(registration)
            return secretShown(person, clientID: created.client.id, secret: created.generatedSecret, made: true)
        } catch let problem as AdminProblem {
            return try await clientsPage(person, problem: problem.detail)
        } catch let problem as ConfigurationError {
            return try await clientsPage(person, problem: problem.description)
        }
    }

    /// Rotates a client's secret, or deletes the client, as the form on the clients page says.
    func changeClient(_ request: Request, clientID: String) async throws -> Response {
        try await submitted(request) { person, form in try await changeClient(form, clientID: clientID, by: person) }
    }

    private func changeClient(_ form: FormParameters, clientID: String, by person: Operator) async throws -> Response {
        do {
            switch form["change"] {
            case "rotate_secret":
                let secret = try await operations(person.actor).rotateClientSecret(of: clientID)
                return secretShown(person, clientID: clientID, secret: secret, made: false)
            case "delete":
                try await operations(person.actor).deleteClient(clientID)
                return Redirect.to(Self.path + "/clients", afterPost: true)
            default:
                return PageRenderer.error(title: "Invalid request", message: "The form asked for a change the console does not make.")
            }
        } catch let problem as AdminProblem {
            return try await clientsPage(person, problem: problem.detail)
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

    func keysPage(_ person: Operator, notice: String? = nil) async throws -> Response {
        var values = values(person, section: "Keys")
        values["keys"] = try await operations(person.actor).signingKeys().map { key -> [String: Any] in
            [
                "kid": key.kid, "algorithm": key.algorithm, "status": key.status.rawValue, "created": Timestamp.format(key.createdAt),
                "activates": Timestamp.format(key.activatesAt), "retired": Timestamp.format(key.retiredAt),
            ]
        }
        if let notice { values["notice"] = notice }
        return PageRenderer.page(title: "Signing keys · Admin console", template: "admin-keys", values)
    }

    /// Rotates the signing keys: a new key of every algorithm signs from now; the old ones stay published until every
    /// token they signed has expired.
    func rotateKeys(_ request: Request) async throws -> Response {
        try await submitted(request) { person, _ in
            let made = try await operations(person.actor).rotateSigningKeys()
            try await keys.reloadNow()
            return try await keysPage(person, notice: "New keys sign from now: \(made.map(\.kid).joined(separator: ", ")).")
        }
    }
}
