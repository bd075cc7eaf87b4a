import Foundation
import GatehouseDomain
import Hummingbird

/// The admin API's resources (APIs that accept this server's access tokens, RFC 8707): `/admin/v1/resources`, each
/// addressed by its identifier percent-encoded as one path segment.
extension AdminController {
    func addResourceRoutes(to api: RouterGroup<some RequestContext>) {
        api.get("/resources") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().resources())) }
        }
        api.post("/resources") { request, context in try await write(request, context) { try await createResource(request, actor: $0) } }
        api.get("/resources/:id") { request, context in
            try await read(request, context) { Self.resourceResponse(try await operations().resource(id: try Self.resourceID(context))) }
        }
        api.patch("/resources/:id") { request, context in
            try await write(request, context) { try await updateResource(try Self.resourceID(context), request, actor: $0) }
        }
        api.delete("/resources/:id") { request, context in
            try await write(request, context) {
                try await operations($0).deleteResource(try Self.resourceID(context))
                return Response(status: .noContent)
            }
        }
    }

    /// The identifier in the path, percent-decoded (`https%3A%2F%2Fapi.example.com%2Fnotes`).
    private static func resourceID(_ context: some RequestContext) throws -> String {
        let raw = try context.parameters.require("id")
        guard let decoded = raw.removingPercentEncoding else {
            throw AdminProblem.badRequest("The resource identifier in the path is not valid percent-encoding.")
        }
        return decoded
    }

    private static func resourceResponse(_ resource: Resource, status: HTTPResponse.Status = .ok) -> Response {
        var response = JSONResponse.make(resource, status: status)
        response.headers[.eTag] = AdminETag.of(resource)
        return response
    }

    private func createResource(_ request: Request, actor: String) async throws -> Response {
        let body = try await JSONRequest.decode(AdminResourceBody.self, from: request)
        guard let id = body.id, let name = body.name else { throw AdminProblem.badRequest("A resource needs an id (its identifier) and a name.") }
        let created = try await operations(actor).createResource(body.applied(to: Resource(id: id, name: name)))
        var response = Self.resourceResponse(created, status: .created)
        response.headers[.location] = "/admin/v1/resources/\(Self.pathSegment(created.id))"
        return response
    }

    private func updateResource(_ id: String, _ request: Request, actor: String) async throws -> Response {
        guard let expected = request.headers[.ifMatch] else { throw AdminProblem.preconditionRequired }
        let body = try await JSONRequest.decode(AdminResourceBody.self, from: request)
        if body.id != nil { throw AdminProblem.badRequest("A resource's identifier cannot change; register a new one instead.") }
        let current = try await operations().resource(id: id)
        guard expected == AdminETag.of(current) || expected == "*" else { throw AdminProblem.preconditionFailed }
        return Self.resourceResponse(try await operations(actor).updateResource(body.applied(to: current)))
    }

    /// `identifier` as one path segment: every character but the unreserved ones percent-encoded.
    static func pathSegment(_ identifier: String) -> String {
        identifier.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
            ?? identifier
    }
}
