import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's identity providers, as configured, checked on request the way `gatehouse providers check` checks
/// them (their discovery document and keys fetched now); and the development outbox, where codes go when no courier
/// delivers them.
extension AdminConsole {
    func providersPage(_ request: Request, _ person: Operator) async throws -> Response {
        let checking = FormParameters(encoded: request.uri.query ?? "")["check"] == "1"
        var shown: [[String: Any]] = []
        for provider in providers {
            var row: [String: Any] = [
                "id": provider.id, "name": provider.name, "kind": provider.kind.rawValue, "issuer": provider.issuer ?? provider.authorizationEndpoint ?? "",
                "clientID": provider.clientID, "newIdentities": provider.newIdentities.rawValue,
            ]
            if checking {
                let check = await IdentityProviderCheck.run(provider, issuer: issuer)
                row["checked"] = true
                row["ready"] = check.problems.isEmpty
                row["problems"] = check.problems.joined(separator: " ")
            }
            shown.append(row)
        }
        var values = values(person, section: "Providers")
        values["providers"] = shown
        values["none"] = providers.isEmpty
        values["redirectURI"] = issuer + "/login/idp/callback"
        return PageRenderer.page(title: "Identity providers · Admin console", template: "admin-providers", values)
    }

    /// The newest messages of the development outbox; their bodies (which hold codes) only for a role that changes.
    func outboxPage(_ person: Operator) async throws -> Response {
        guard showsOutbox else {
            return PageRenderer.error(title: "Not found", message: "No courier channel delivers to the development outbox.", status: .notFound)
        }
        var values = values(person, section: "Outbox")
        values["messages"] = try await operations(person).outbox(to: nil, limit: 50).map { message -> [String: Any] in
            var row: [String: Any] = [
                "id": message.message.id, "channel": message.message.channel, "recipient": message.message.recipient,
                "template": message.message.template, "status": message.message.status, "created": Timestamp.format(message.message.createdAt),
            ]
            if person.role.canChange {
                row["subject"] = message.subject ?? ""
                row["body"] = message.body ?? ""
            }
            return Self.present(row)
        }
        return PageRenderer.page(title: "Outbox · Admin console", template: "admin-outbox", values)
    }
}
