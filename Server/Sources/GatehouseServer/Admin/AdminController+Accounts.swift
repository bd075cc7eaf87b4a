import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The admin API's routes about what an account signs in with, its sessions, its devices, clients' secrets and the
/// courier's outbox.
extension AdminController {
    func addAccountRoutes<Context: RequestContext>(to api: RouterGroup<Context>) {
        api.get("/users/:id/passkeys") { request, context in
            try await read(request, context) {
                JSONResponse.make(AdminPage(items: try await operations().passkeys(of: try context.parameters.require("id"))))
            }
        }
        api.patch("/users/:id/passkeys/:passkey") { request, context in
            try await write(request, context) { actor in
                let name = try await JSONRequest.decode(AdminPasskeyChange.self, from: request).name
                return JSONResponse.make(
                    try await operations(actor).renamePasskey(
                        try context.parameters.require("passkey"), of: try context.parameters.require("id"), to: name))
            }
        }
        api.delete("/users/:id/passkeys/:passkey") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).removePasskey(try context.parameters.require("passkey"), of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // Reset second factors: authenticator apps, phone and email factors and recovery codes go (passkeys are removed one by one).
        api.delete("/users/:id/factors") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).resetSecondFactors(of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // Sign the user out everywhere: browser sessions end, access and refresh tokens are revoked.
        api.delete("/users/:id/sessions") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).signOutEverywhere(try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // Where the user is signed in, to end one place at a time.
        api.get("/users/:id/sessions") { request, context in
            try await read(request, context) {
                JSONResponse.make(AdminPage(items: try await operations().browserSessions(of: try context.parameters.require("id"))))
            }
        }
        api.delete("/users/:id/sessions/:session") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).endBrowserSession(try context.parameters.require("session"), of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        api.get("/users/:id/grants") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().grants(of: try context.parameters.require("id")))) }
        }
        api.delete("/users/:id/grants/:grant") { request, context in
            try await write(request, context) { actor in
                _ = try await operations(actor).revokeGrant(try context.parameters.require("grant"), of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // What the user allowed third-party clients; revoking one revokes its tokens too.
        api.get("/users/:id/consents") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().consents(of: try context.parameters.require("id")))) }
        }
        api.delete("/users/:id/consents/:client") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).revokeConsent(to: try context.parameters.require("client"), of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        api.delete("/users/:id/identities/:provider") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).unlinkIdentity(at: try context.parameters.require("provider"), of: try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // The admin console's roles: who holds one, given (replacing any other) and taken away.
        api.get("/admin-roles") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().adminRoleHolders())) }
        }
        api.get("/users/:id/admin-role") { request, context in
            try await read(request, context) { JSONResponse.make(try await operations().adminRole(of: try context.parameters.require("id"))) }
        }
        api.put("/users/:id/admin-role") { request, context in
            try await write(request, context) { actor in
                let id = try context.parameters.require("id")
                let role = try await JSONRequest.decode(AdminRoleChange.self, from: request).role
                guard let known = AdminRole(rawValue: role) else {
                    throw AdminProblem.badRequest("role must be one of \(AdminRole.allCases.map(\.rawValue).joined(separator: ", ")), not \(role).")
                }
                let operations = operations(actor)
                try await operations.grantAdminRole(known, to: try await operations.user(id: id).username)
                return JSONResponse.make(try await operations.adminRole(of: id))
            }
        }
        api.delete("/users/:id/admin-role") { request, context in
            try await write(request, context) { actor in
                let operations = operations(actor)
                try await operations.revokeAdminRole(of: try await operations.user(id: try context.parameters.require("id")).username)
                return Response(status: .noContent)
            }
        }
        api.post("/clients/:id/rotate-secret") { request, context in
            try await write(request, context) { actor in
                let secret = try await operations(actor).rotateClientSecret(of: try context.parameters.require("id"))
                var response = JSONResponse.make(AdminRotatedSecret(clientSecret: secret))
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        api.get("/devices") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().devices(of: nil))) }
        }
        api.post("/devices/:id/unblock") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).unblockDevice(try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        api.delete("/devices/:id") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).deleteDevice(try context.parameters.require("id"))
                return Response(status: .noContent)
            }
        }
        // The courier's messages, without their bodies: they hold codes.
        api.get("/outbox") { request, context in
            try await read(request, context) {
                let query = FormParameters(encoded: request.uri.query ?? "")
                let messages = try await operations().outbox(to: query["to"], limit: try Self.limit(query["limit"]))
                return JSONResponse.make(AdminPage(items: messages.map(\.message)))
            }
        }
    }
}

/// `PUT /admin/v1/users/{id}/admin-role`: the role to hold.
struct AdminRoleChange: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys
    var role: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case role
    }
}

/// A client's new secret, shown once.
struct AdminRotatedSecret: Encodable, Sendable {
    var clientSecret: String

    enum CodingKeys: String, CodingKey {
        case clientSecret = "client_secret"
    }
}

/// A passkey as the admin API lists it.
public struct AdminPasskey: Codable, Sendable {
    public var id, name, aaguid, attestation: String
    public var synced, userVerified: Bool
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    init(_ passkey: Passkey) {
        id = passkey.id
        name = passkey.name
        aaguid = passkey.aaguid
        attestation = passkey.attestation
        synced = passkey.backupEligible
        userVerified = passkey.userVerified
        createdAt = passkey.createdAt
        lastUsedAt = passkey.lastUsedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, aaguid, attestation, synced
        case userVerified = "user_verified"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

/// `PATCH /admin/v1/users/{id}/passkeys/{passkey}`: the passkey's new name.
struct AdminPasskeyChange: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys
    var name: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
    }
}

/// A device identity (an authenticator app) as the admin API lists it.
public struct AdminDevice: Codable, Sendable {
    public var id, email, state: String
    public var userID, deviceName: String?
    public var pinFailures: Int
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    /// Where its sign-in pushes go (`apns`, `fcm`), once the app registered a token.
    public var pushPlatform: String?

    /// `limit`: the wrong PINs that block an identity, so a blocked one shows as `blocked`.
    public init(_ identity: DeviceIdentity, limit: Int) {
        id = identity.id
        email = identity.email
        state = identity.state(limit: limit).rawValue
        userID = identity.userID
        deviceName = identity.deviceName
        pinFailures = identity.pinFailures
        createdAt = identity.createdAt
        lastUsedAt = identity.lastUsedAt
        pushPlatform = identity.push?.platform.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case id, email, state
        case userID = "user_id"
        case deviceName = "device_name"
        case pinFailures = "pin_failures"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case pushPlatform = "push_platform"
    }
}

/// A courier message as the admin API lists it: where and how, never the body.
public struct AdminMessage: Codable, Sendable {
    public var id, channel, recipient, template, status: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Int64
    public var sentAt: Int64?

    init(_ message: CourierMessage) {
        id = message.id
        channel = message.channel.rawValue
        recipient = message.recipient
        template = message.template
        status = message.status.rawValue
        attempts = message.attempts
        lastError = message.lastError
        createdAt = message.createdAt
        sentAt = message.sentAt
    }

    enum CodingKeys: String, CodingKey {
        case id, channel, recipient, template, status, attempts
        case lastError = "last_error"
        case createdAt = "created_at"
        case sentAt = "sent_at"
    }
}
