import Foundation
import GatehouseDomain
import Hummingbird

/// The admin API's initial access tokens for clients that register themselves (RFC 7591): `/admin/v1/registration-tokens`.
extension AdminController {
    func addRegistrationTokenRoutes(to api: RouterGroup<some RequestContext>) {
        api.get("/registration-tokens") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().registrationTokens())) }
        }
        api.post("/registration-tokens") { request, context in
            try await write(request, context) { actor in
                let body = try await JSONRequest.decode(AdminNewRegistrationToken.self, from: request)
                let created = try await operations(actor).createRegistrationToken(
                    name: body.name, lifetime: body.expiresIn ?? 7 * 86_400, maxUses: body.maxUses)
                var response = JSONResponse.make(created, status: .created)
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        api.delete("/registration-tokens/:id") { request, context in
            try await write(request, context) {
                try await operations($0).revokeRegistrationToken(try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
    }
}

/// `POST /admin/v1/registration-tokens`.
struct AdminNewRegistrationToken: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var name: String
    /// Seconds it is valid; a week when absent.
    var expiresIn: Int64?
    /// Registrations it allows; any number until it expires when absent.
    var maxUses: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case expiresIn = "expires_in"
        case maxUses = "max_uses"
    }
}
