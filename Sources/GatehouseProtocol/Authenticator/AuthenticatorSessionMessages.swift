/// Claims the sign-in session behind a QR code's access code for the device identity sending it.
public struct AuthenticatorSessionRequest: Codable, Sendable, Equatable {
    /// The access code read from the QR code.
    public var accessCode: String

    /// A claim of the sign-in that shows `accessCode`.
    public init(accessCode: String) {
        self.accessCode = accessCode
    }

    enum CodingKeys: String, CodingKey {
        case accessCode = "access_code"
    }
}

/// A claimed sign-in session: who is asking, and how long the person has to answer.
public struct AuthenticatorSession: Codable, Sendable, Equatable {
    /// The sign-in session to approve or deny.
    public var sessionID: String
    /// The service the sign-in is for, as it names itself.
    public var serviceName: String
    /// The application the person is signing in to.
    public var clientName: String
    /// The account that will be signed in.
    public var username: String
    /// Seconds left to approve.
    public var expiresIn: Int64
    /// Where the sign-in was requested, as the server saw it: the requesting browser's IP address, so a QR code
    /// relayed from a phishing page shows the phisher's address rather than the person's own.
    public var requesterAddress: String?
    /// The requesting browser's `User-Agent`, as the server saw it.
    public var requesterUserAgent: String?
    /// When the sign-in was requested, in seconds since 1970.
    public var requestedAt: Int64?
    /// For a sign-in sent by push: three two-digit numbers, one of them the number the browser shows. The person
    /// picks it (number matching), so a push they did not ask for cannot be approved by reflex.
    public var numberChoices: [Int]?

    /// A claimed sign-in.
    public init(
        sessionID: String, serviceName: String, clientName: String, username: String, expiresIn: Int64,
        requesterAddress: String? = nil, requesterUserAgent: String? = nil, requestedAt: Int64? = nil, numberChoices: [Int]? = nil
    ) {
        self.sessionID = sessionID
        self.serviceName = serviceName
        self.clientName = clientName
        self.username = username
        self.expiresIn = expiresIn
        self.requesterAddress = requesterAddress
        self.requesterUserAgent = requesterUserAgent
        self.requestedAt = requestedAt
        self.numberChoices = numberChoices
    }

    enum CodingKeys: String, CodingKey {
        case username
        case sessionID = "session_id"
        case serviceName = "service_name"
        case clientName = "client_name"
        case expiresIn = "expires_in"
        case requesterAddress = "requester_address"
        case requesterUserAgent = "requester_user_agent"
        case requestedAt = "requested_at"
        case numberChoices = "number_choices"
    }
}

/// Approves a session: the signature over ``PINProtocol/approvalMessage(sessionID:challenge:)`` with the
/// identity's signing key (ECDSA P-256, raw r‖s, base64url).
public struct AuthenticatorApproval: Codable, Sendable, Equatable {
    /// The device key's ECDSA P-256 signature over the server's challenge, base64url.
    public var signature: String
    /// For a sign-in sent by push: the number the person picked among ``AuthenticatorSession/numberChoices``. A
    /// wrong one denies the sign-in and counts as a wrong guess.
    public var number: Int?

    /// An approval carrying `signature` (and, for a push, the number picked).
    public init(signature: String, number: Int? = nil) {
        self.signature = signature
        self.number = number
    }
}

/// Declines a session (`…/abort`); with ``reportFraud`` the person says they did not ask for it: the owner is told
/// and the audit trail records it.
public struct AuthenticatorDenial: Codable, Sendable, Equatable {
    /// "This wasn't me."
    public var reportFraud: Bool

    /// A denial, reported as fraud or not.
    public init(reportFraud: Bool) {
        self.reportFraud = reportFraud
    }

    enum CodingKeys: String, CodingKey {
        case reportFraud = "report_fraud"
    }
}

/// Where a QR sign-in stands: `pending` (no app yet), `claimed` (an app is asking for the PIN), `approved`,
/// `aborted` (cancelled in the app) or `expired`.
public struct AuthenticatorSessionStatus: Codable, Sendable, Equatable {
    /// Where the sign-in is: `pending`, `approved`, `denied` or `expired`.
    public var status: String

    /// A status.
    public init(status: String) {
        self.status = status
    }
}
