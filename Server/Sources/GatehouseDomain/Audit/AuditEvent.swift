import HTTPTypes
import Logging
import NIOCore

/// One security-relevant event: what happened, when, to whom, by whom, from where. Never a secret: no password,
/// code, token or PIN is ever a detail.
public struct AuditEvent: Sendable, Codable, Equatable {
    /// Unique and ordered by time: the cursor of queries.
    public var id: String
    public var type: AuditEventType
    /// Unix seconds.
    public var occurredAt: Int64
    /// Who did it: `user:ID`, `client:ID`, `operator:NAME` (the CLI), `system`.
    public var actor: String
    /// The account it is about, when there is one.
    public var userID: String?
    public var clientID: String?
    /// The client address (after trusted proxies), user agent and request id of the request that caused it.
    public var address: String?
    public var userAgent: String?
    public var requestID: String?
    /// What else there is to know: the factor, the reason, the fields an operator changed.
    public var details: [String: String]

    package enum CodingKeys: String, CodingKey {
        case id, type, actor, address, details
        case occurredAt = "occurred_at"
        case userID = "user_id"
        case clientID = "client_id"
        case userAgent = "user_agent"
        case requestID = "request_id"
    }
}

/// The request an event happens in, set around each request (``RequestIDMiddleware``) and by the CLI, so that events
/// recorded deep in a flow know where they came from without every call passing it along.
public struct AuditContext: Sendable {
    public var actor: String?
    /// The client's address. For a request it is worked out when an event asks for it: most requests record none.
    public var address: String? {
        get { givenAddress ?? pendingAddress?.text }
        set {
            givenAddress = newValue
            pendingAddress = nil
        }
    }
    public var userAgent: String?
    public var requestID: String?
    private var givenAddress: String?
    private var pendingAddress: PendingAddress?

    public init(actor: String? = nil, address: String? = nil, userAgent: String? = nil, requestID: String? = nil) {
        self.actor = actor
        self.givenAddress = address
        self.userAgent = userAgent
        self.requestID = requestID
    }

    /// The context of a request from `peer`, whose address (behind `proxies`) is read only when needed.
    package init(peer: SocketAddress?, headers: HTTPFields, proxies: TrustedProxies, userAgent: String?, requestID: String) {
        self.init(userAgent: userAgent, requestID: requestID)
        pendingAddress = PendingAddress(peer: peer, headers: headers, proxies: proxies)
    }

    /// What the client's address is worked out from.
    private struct PendingAddress: Sendable {
        let peer: SocketAddress?
        let headers: HTTPFields
        let proxies: TrustedProxies

        var text: String? { ClientAddress(peer.map { proxies.client(behind: $0, headers: headers) }).text }
    }

    @TaskLocal public static var current = AuditContext()

    /// Log metadata naming the running request (`request=…`), for every log line written while it is handled.
    public static let requestMetadata = Logger.MetadataProvider {
        guard let id = current.requestID else { return [:] }
        return ["request": "\(id)"]
    }
}
