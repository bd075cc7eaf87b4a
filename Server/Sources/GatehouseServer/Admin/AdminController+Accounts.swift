import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The admin API's routes about what an account signs in with, its sessions, its devices, clients' secrets and the
/// courier's outbox.
extension AdminController {
    func addAccountRoutes<Context: RequestContext>(to api: RouterGroup<Context>) {
        api.get("/users/:id/passkeys") { request, context in
            try await read(request, context) {
                let user = try await user(try context.parameters.require("id"))
                return JSONResponse.make(AdminPage(items: try await server.passkeys.list(userID: user.id).map(AdminPasskey.init)))
            }
        }
        api.patch("/users/:id/passkeys/:passkey") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let id = try context.parameters.require("passkey")
                let name = try await JSONRequest.decode(AdminPasskeyChange.self, from: request).name.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw AdminProblem.badRequest("name must not be empty.") }
                guard try await server.passkeys.rename(id, of: user.id, to: String(name.prefix(64))),
                    let renamed = try await server.passkeys.list(userID: user.id).first(where: { $0.id == id })
                else { throw AdminProblem.notFound("The user has no passkey \(id).") }
                return JSONResponse.make(AdminPasskey(renamed))
            }
        }
        api.delete("/users/:id/passkeys/:passkey") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let passkey = try context.parameters.require("passkey")
                try await server.database.transaction { [server] _ in
                    guard try await server.passkeys.remove(passkey, of: user.id) else { throw AdminProblem.notFound("The user has no passkey \(passkey).") }
                    try await server.audit.record(.factorRemoved, user: user.id, details: ["factor": "passkey", "passkey": passkey])
                }
                return Response(status: .noContent)
            }
        }
        // Reset second factors: authenticator apps, phone and email factors and recovery codes go (passkeys are removed one by one).
        api.delete("/users/:id/factors") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                try await server.database.transaction { [server] _ in
                    try await server.authenticators.removeAll(userID: user.id)
                    try await server.audit.record(.factorRemoved, user: user.id, details: ["factor": "all"])
                }
                return Response(status: .noContent)
            }
        }
        // Sign the user out everywhere: browser sessions end, access and refresh tokens are revoked.
        api.delete("/users/:id/sessions") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let now = server.clock.now()
                try await server.database.transaction { [server] sql in
                    try await UserStore.endEverything(for: user.id, at: now, in: sql)
                    try await server.audit.record(.tokenRevoked, user: user.id, details: ["scope": "all sessions and tokens"])
                }
                return Response(status: .noContent)
            }
        }
        // Where the user is signed in, to end one place at a time.
        api.get("/users/:id/sessions") { request, context in
            try await read(request, context) {
                let user = try await user(try context.parameters.require("id"))
                return JSONResponse.make(AdminPage(items: try await server.activeSessions.browserSessions(of: user.id)))
            }
        }
        api.delete("/users/:id/sessions/:session") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let session = try context.parameters.require("session")
                try await server.database.transaction { [server] _ in
                    guard try await server.activeSessions.endBrowserSession(session, of: user.id) else {
                        throw AdminProblem.notFound("The user has no browser session \(session).")
                    }
                    try await server.audit.record(.sessionEnded, user: user.id, details: ["session": session])
                }
                return Response(status: .noContent)
            }
        }
        api.get("/users/:id/grants") { request, context in
            try await read(request, context) {
                let user = try await user(try context.parameters.require("id"))
                return JSONResponse.make(AdminPage(items: try await server.activeSessions.grants(of: user.id)))
            }
        }
        api.delete("/users/:id/grants/:grant") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let grant = try context.parameters.require("grant")
                try await server.database.transaction { [server] _ in
                    guard let client = try await server.activeSessions.revokeGrant(grant, of: user.id) else {
                        throw AdminProblem.notFound("The user has no live grant \(grant).")
                    }
                    try await server.audit.record(.tokenRevoked, user: user.id, client: client, details: ["grant": grant])
                }
                return Response(status: .noContent)
            }
        }
        api.delete("/users/:id/identities/:provider") { request, context in
            try await write(request, context) { _ in
                let user = try await user(try context.parameters.require("id"))
                let provider = try context.parameters.require("provider")
                let outcome = try await server.database.transaction { [server] _ in
                    let outcome = try await server.federatedIdentities.unlink(userID: user.id, providerID: provider)
                    if outcome == .unlinked { try await server.audit.record(.identityUnlinked, user: user.id, details: ["provider": provider]) }
                    return outcome
                }
                switch outcome {
                case .unlinked: return Response(status: .noContent)
                case .notLinked: throw AdminProblem.notFound("The user has no identity at \(provider).")
                case .lastWayToSignIn: throw AdminProblem.conflict("\(provider) is the account's only way to sign in; it stays linked.")
                }
            }
        }
        api.post("/clients/:id/rotate-secret") { request, context in
            try await write(request, context) { _ in
                let id = try context.parameters.require("id")
                let secret = Base64URL.encode(SecureRandom.bytes(32))
                try await server.database.transaction { [server] _ in
                    guard try await server.clients.replaceSecret(of: id, with: secret) else {
                        throw AdminProblem.notFound("There is no confidential client \(id).")
                    }
                    try await server.audit.record(.clientSecretRotated, client: id)
                }
                var response = JSONResponse.make(AdminRotatedSecret(clientSecret: secret))
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        api.get("/devices") { request, context in
            try await read(request, context) {
                let limit = server.configuration.authenticator.maxPINAttempts
                return JSONResponse.make(AdminPage(items: try await server.deviceIdentities.list().map { AdminDevice($0, limit: limit) }))
            }
        }
        api.post("/devices/:id/unblock") { request, context in
            try await write(request, context) { _ in
                let id = try context.parameters.require("id")
                try await server.database.transaction { [server] _ in
                    guard try await server.deviceIdentities.unblock(id) else { throw AdminProblem.notFound("There is no blocked device identity \(id).") }
                    try await server.audit.record(.deviceIdentityUnblocked, details: ["identity": id])
                }
                return Response(status: .noContent)
            }
        }
        api.delete("/devices/:id") { request, context in
            try await write(request, context) { _ in
                let id = try context.parameters.require("id")
                try await server.database.transaction { [server] _ in
                    guard try await server.deviceIdentities.delete(id) else { throw AdminProblem.notFound("There is no device identity \(id).") }
                    try await server.audit.record(.deviceIdentityDeleted, details: ["identity": id])
                }
                return Response(status: .noContent)
            }
        }
        // The courier's messages, without their bodies: they hold codes.
        api.get("/outbox") { request, context in
            try await read(request, context) {
                let query = FormParameters(encoded: request.uri.query ?? "")
                let messages = try await server.courier.queue.list(recipient: query["to"], limit: try Self.limit(query["limit"]))
                return JSONResponse.make(AdminPage(items: messages.map(AdminMessage.init)))
            }
        }
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
    }

    enum CodingKeys: String, CodingKey {
        case id, email, state
        case userID = "user_id"
        case deviceName = "device_name"
        case pinFailures = "pin_failures"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
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
