import Foundation
import GatehouseFoundation
import SQLKit

/// The resources (APIs) operators registered, in the database.
public struct ResourceStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// The resources of `database`, created at `clock`'s time.
    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Registers `resource` (its creation time set now). Throws a duplicate ``DatabaseError`` when its identifier is taken.
    @discardableResult
    package func create(_ resource: Resource, in sql: any SQLDatabase) async throws -> Resource {
        var created = resource
        created.createdAt = clock.now()
        if try await sql.raw("SELECT id FROM resources WHERE id = \(bind: resource.id)").first() != nil {
            throw DatabaseError.duplicate("A resource with the identifier \(resource.id)")
        }
        try await sql.raw(
            """
            INSERT INTO resources (
                id, name, scopes, token_format, token_alg, access_token_lifetime, require_dpop, allowed_clients, introspection_clients, created_at)
            VALUES (\(bind: created.id), \(bind: created.name), \(bind: try Self.encode(created.scopes)), \(bind: created.tokenFormat.rawValue),
                    \(bind: created.tokenAlgorithm.rawValue),
                    \(bind: created.accessTokenLifetime), \(bind: created.requiresDPoP ? 1 : 0), \(bind: try JSONList.encode(created.allowedClients)),
                    \(bind: try JSONList.encode(created.introspectionClients)), \(bind: created.createdAt))
            """
        ).run()
        return created
    }

    /// The resource registered as `id`, or `nil`.
    public func find(id: String) async throws -> Resource? {
        try await database.read { sql in try await Self.find(id: id, in: sql) }
    }

    /// The registered resource a request's `resource` names, or `nil`: unknown, or no identifier at all (never looked up).
    package func find(named identifier: String) async throws -> Resource? {
        // Only the length is checked: every registered identifier passed ``ResourceRules/validateIdentifier(_:)``, so
        // any other text is simply not found (parsing it as a URL on every token request cost more than the lookup).
        guard (1...ResourceRules.maximumIdentifierLength).contains(identifier.utf8.count) else { return nil }
        return try await find(id: identifier)
    }

    /// ``find(id:)`` inside a transaction or read already open.
    package static func find(id: String, in sql: any SQLDatabase) async throws -> Resource? {
        try await sql.raw("SELECT * FROM resources WHERE id = \(bind: id)").first().map(Self.decode)
    }

    /// The resources named `ids`, in that order; `nil` when any of them is not registered.
    package func find(ids: [String]) async throws -> [Resource]? {
        try await database.read { sql in
            var resources: [Resource] = []
            for id in ids {
                guard let resource = try await Self.find(id: id, in: sql) else { return nil }
                resources.append(resource)
            }
            return resources
        }
    }

    /// Every registered resource, by identifier.
    public func list() async throws -> [Resource] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM resources ORDER BY id").all().map(Self.decode)
        }
    }

    /// The scopes every registered resource accepts, which a client that registers itself may name.
    package func scopeNames() async throws -> Set<String> {
        Set(try await list().flatMap(\.scopeNames))
    }

    /// Changes a resource's settings to `changed`, inside a transaction already open; `false` when it is gone.
    package func update(_ changed: Resource, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE resources SET name = \(bind: changed.name), scopes = \(bind: try Self.encode(changed.scopes)),
                token_format = \(bind: changed.tokenFormat.rawValue), token_alg = \(bind: changed.tokenAlgorithm.rawValue),
                access_token_lifetime = \(bind: changed.accessTokenLifetime),
                require_dpop = \(bind: changed.requiresDPoP ? 1 : 0), allowed_clients = \(bind: try JSONList.encode(changed.allowedClients)),
                introspection_clients = \(bind: try JSONList.encode(changed.introspectionClients))
            WHERE id = \(bind: changed.id) RETURNING id
            """
        ).first() != nil
    }

    /// Deletes a resource, inside a transaction already open, and revokes every access token issued for it: a token
    /// for an API the server no longer knows must not stay valid. `false` when there is no such resource.
    package func delete(id: String, in sql: any SQLDatabase) async throws -> Bool {
        guard try await sql.raw("DELETE FROM resources WHERE id = \(bind: id) RETURNING id").first() != nil else { return false }
        try await sql.raw(
            "UPDATE access_tokens SET revoked_at = \(bind: clock.now()) WHERE audience = \(bind: id) AND revoked_at IS NULL"
        ).run()
        return true
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static func encode(_ scopes: [Resource.Scope]) throws -> String {
        String(decoding: try encoder.encode(scopes), as: UTF8.self)
    }

    /// A token request for a resource reads it, scopes and all.
    private static let decodedScopes = DecodedJSONMemo<[Resource.Scope]>()

    package static func decode(_ row: any SQLRow) throws -> Resource {
        Resource(
            id: try row.decode(column: "id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            scopes: try decodedScopes.decode(try row.decode(column: "scopes", as: String.self)),
            tokenFormat: Resource.TokenFormat(rawValue: try row.decode(column: "token_format", as: String.self)) ?? .opaque,
            tokenAlgorithm: Resource.SigningAlgorithm(rawValue: try row.decode(column: "token_alg", as: String.self)) ?? .rs256,
            accessTokenLifetime: try row.decode(column: "access_token_lifetime", as: Int64?.self),
            requiresDPoP: try row.decode(column: "require_dpop", as: Int.self) != 0,
            allowedClients: try JSONList.decode(try row.decode(column: "allowed_clients", as: String.self)),
            introspectionClients: try JSONList.decode(try row.decode(column: "introspection_clients", as: String.self)),
            createdAt: try row.decode(column: "created_at", as: Int64.self)
        )
    }
}
