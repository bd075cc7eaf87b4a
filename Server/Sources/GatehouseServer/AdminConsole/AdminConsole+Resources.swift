import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's resources (APIs that accept this server's access tokens) and their scopes: listed, registered,
/// edited and removed with the admin API's rules.
extension AdminConsole {
    func resourcesPage(_ person: Operator, refused: FormParameters? = nil, problem: String? = nil) async throws -> Response {
        var values = values(person, section: "Resources")
        let resources = try await operations(person).resources()
        values["hasResources"] = !resources.isEmpty
        values["resources"] = resources.map { resource -> [String: Any] in
            [
                "id": resource.id, "path": AdminController.pathSegment(resource.id), "name": resource.name,
                "scopes": resource.scopeNames.joined(separator: " "), "format": resource.tokenFormat.rawValue,
            ]
        }
        values["formats"] = Self.formatChoices(nil)
        values["algorithms"] = Self.algorithmChoices(nil)
        if let refused {
            values["new"] = ["id": refused["id"] ?? "", "name": refused["name"] ?? "", "scopes": refused["scopes"] ?? ""]
        }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Resources · Admin console", template: "admin-resources", values, status: problem == nil ? .ok : .badRequest)
    }

    /// Registers the resource the form describes.
    func createResource(_ form: FormParameters, by person: Operator) async throws -> Response {
        do {
            let resource = try Self.resource(from: form, changing: Resource(id: Self.text(form, "id") ?? "", name: ""))
            let created = try await operations(person).createResource(resource)
            return back(to: "/resources/" + AdminController.pathSegment(created.id), done: "resource_saved")
        } catch let problem as AdminProblem {
            return try await resourcesPage(person, refused: form, problem: problem.detail)
        }
    }

    /// One resource, its settings in a form.
    func resourcePage(_ path: String, _ person: Operator, notice: String? = nil, problem: String? = nil) async throws -> Response {
        let id = path.removingPercentEncoding ?? path
        guard let resource = try? await operations(person).resource(id: id) else {
            return PageRenderer.error(title: "Not found", message: "There is no resource with that identifier.", status: .notFound)
        }
        var values = values(person, section: "Resources")
        values["resource"] = [
            "id": resource.id, "path": AdminController.pathSegment(resource.id), "name": resource.name,
            "scopes": resource.scopes.map { "\($0.name): \($0.description)" }.joined(separator: "\n"),
            "lifetime": resource.accessTokenLifetime.map(String.init) ?? "", "allowed": resource.allowedClients.joined(separator: " "),
            "introspection": resource.introspectionClients.joined(separator: " "), "requireDPoP": resource.requiresDPoP,
            "created": Timestamp.format(resource.createdAt),
        ]
        values["formats"] = Self.formatChoices(resource.tokenFormat)
        values["algorithms"] = Self.algorithmChoices(resource.tokenAlgorithm)
        values["etag"] = AdminETag.of(resource)
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "\(resource.name) · Admin console", template: "admin-resource", values, status: problem == nil ? .ok : .badRequest)
    }

    /// Saves or removes the resource, as the form says.
    func changeResource(_ path: String, form: FormParameters, by person: Operator) async throws -> Response {
        let id = path.removingPercentEncoding ?? path
        let operations = operations(person)
        do {
            switch form["change"] {
            case "save":
                let current = try await operations.resource(id: id)
                guard form["etag"] == AdminETag.of(current) else { throw AdminProblem.preconditionFailed }
                _ = try await operations.updateResource(try Self.resource(from: form, changing: current))
                return back(to: "/resources/" + AdminController.pathSegment(id), done: "resource_saved")
            case "delete":
                try await operations.deleteResource(id)
                return Redirect.to(Self.path + "/resources", afterPost: true)
            default:
                return Self.unknownChange
            }
        } catch let problem as AdminProblem {
            return try await resourcePage(path, person, problem: Self.explain(problem))
        }
    }

    /// `resource` with the settings the form gives; scopes one per line as `name: what it lets an application do`.
    static func resource(from form: FormParameters, changing resource: Resource) throws -> Resource {
        var changed = resource
        changed.name = text(form, "name") ?? ""
        changed.scopes = try (form["scopes"] ?? "").split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw AdminProblem.badRequest("Write each scope as its name, a colon, and what it lets an application do: \(trimmed)")
            }
            return Resource.Scope(
                name: trimmed[..<colon].trimmingCharacters(in: .whitespaces),
                description: trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        if let format = form["token_format"] {
            guard let known = Resource.TokenFormat(rawValue: format) else { throw AdminProblem.badRequest("There is no token format \(format).") }
            changed.tokenFormat = known
        }
        if let algorithm = form["token_alg"] {
            guard let known = Resource.SigningAlgorithm(rawValue: algorithm) else { throw AdminProblem.badRequest("There is no algorithm \(algorithm).") }
            changed.tokenAlgorithm = known
        }
        if let lifetime = text(form, "access_token_lifetime") {
            guard let seconds = Int64(lifetime) else { throw AdminProblem.badRequest("The access token lifetime is a number of seconds.") }
            changed.accessTokenLifetime = seconds
        } else {
            changed.accessTokenLifetime = nil
        }
        changed.allowedClients = list(form, "allowed_clients")
        changed.introspectionClients = list(form, "introspection_clients")
        changed.requiresDPoP = form["require_dpop"] == "on"
        return changed
    }

    private static func formatChoices(_ chosen: Resource.TokenFormat?) -> [[String: Any]] {
        Resource.TokenFormat.allCases.map { ["value": $0.rawValue, "selected": $0 == chosen] }
    }

    private static func algorithmChoices(_ chosen: Resource.SigningAlgorithm?) -> [[String: Any]] {
        Resource.SigningAlgorithm.allCases.map { ["value": $0.rawValue, "selected": $0 == chosen] }
    }
}
