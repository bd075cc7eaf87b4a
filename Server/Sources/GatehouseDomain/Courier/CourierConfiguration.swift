import Foundation
import GatehouseFoundation

/// How the courier delivers messages (`courier` in the configuration file): one delivery for email and one
/// for SMS, the sender address, and how often a failed delivery is retried.
public struct CourierConfiguration: Sendable, Codable, Equatable {
    /// The `From` of emails, e.g. `Example <no-reply@example.com>`.
    public var sender = "Gatehouse <no-reply@gatehouse.invalid>"
    public var email = DeliverySettings(delivery: .outbox)
    public var sms = DeliverySettings(delivery: .outbox)
    /// Calls that read a code aloud: a voice gateway behind a webhook (the payload's `channel` is `voice`).
    public var voice = DeliverySettings(delivery: .outbox)
    /// Attempts before a message is given up as failed.
    public var maxAttempts = 8
    /// Seconds before the first retry; each further retry waits twice as long, at most an hour.
    public var retryDelay: Int64 = 10
    /// Messages one address or phone number may receive per hour; more are dropped, so nobody can use the
    /// server to flood an inbox or run up an SMS bill by starting flows in a loop.
    public var recipientHourlyLimit = 20
    /// Security notices (a changed authenticator, guesses blocked …) one address may receive per hour. They have a
    /// budget of their own, so messages an attacker can trigger (codes) never crowd out the owner's warnings.
    public var securityNoticeHourlyLimit = 10
    /// The channels whose delivery the configuration file does not name. They fall back to the development
    /// outbox, which `gatehouse serve` accepts only with `--demo`: codes must never silently go nowhere.
    public private(set) var unchosenChannels: [MessageChannel] = [.email, .sms, .voice]

    /// The defaults: both channels to the development outbox, as a fallback nobody chose.
    public init() {}

    /// Both channels delivered as given.
    public init(email: DeliverySettings, sms: DeliverySettings) {
        self.email = email
        self.sms = sms
        unchosenChannels = [.voice]
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = CourierConfiguration()
        sender = try container.decodeIfPresent(String.self, forKey: .sender) ?? defaults.sender
        email = try container.decodeIfPresent(DeliverySettings.self, forKey: .email) ?? defaults.email
        sms = try container.decodeIfPresent(DeliverySettings.self, forKey: .sms) ?? defaults.sms
        voice = try container.decodeIfPresent(DeliverySettings.self, forKey: .voice) ?? defaults.voice
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? defaults.maxAttempts
        retryDelay = try container.decodeIfPresent(Int64.self, forKey: .retryDelay) ?? defaults.retryDelay
        recipientHourlyLimit = try container.decodeIfPresent(Int.self, forKey: .recipientHourlyLimit) ?? defaults.recipientHourlyLimit
        securityNoticeHourlyLimit = try container.decodeIfPresent(Int.self, forKey: .securityNoticeHourlyLimit) ?? defaults.securityNoticeHourlyLimit
        unchosenChannels = [(MessageChannel.email, CodingKeys.email), (.sms, .sms), (.voice, .voice)].filter { !container.contains($0.1) }.map(\.0)
    }

    /// The delivery of `channel`.
    package func settings(for channel: MessageChannel) -> DeliverySettings {
        switch channel {
        case .email: email
        case .sms: sms
        case .voice: voice
        }
    }

    /// Refuses a production start that would drop codes into the development outbox without anyone choosing it.
    /// Calls count only when `voiceInUse` (a sign-on policy offers the voice factor).
    /// - Throws: ``ConfigurationError`` naming the channels and the ways to choose.
    public func requireChosenDelivery(voiceInUse: Bool = false) throws {
        let unchosen = unchosenChannels.filter { $0 != .voice || voiceInUse }
        guard !unchosen.isEmpty else { return }
        let names = unchosen.map { "courier.\($0.rawValue)" }.joined(separator: " and ")
        throw ConfigurationError(
            """
            No delivery is configured for \(names): sign-in codes and security notices would only reach the development outbox. \
            Configure smtp or webhook delivery (docs/server.md, the `courier` section), write `delivery: outbox` explicitly \
            for a development server, or start with --demo.
            """)
    }

    package func validate() throws {
        guard (1...50).contains(maxAttempts) else { throw ConfigurationError(key: "courier.max_attempts", "must be between 1 and 50.") }
        guard (1...3600).contains(retryDelay) else { throw ConfigurationError(key: "courier.retry_delay", "must be between 1 and 3600 seconds.") }
        guard (1...10_000).contains(recipientHourlyLimit) else {
            throw ConfigurationError(key: "courier.recipient_hourly_limit", "must be between 1 and 10000 messages.")
        }
        guard (1...10_000).contains(securityNoticeHourlyLimit) else {
            throw ConfigurationError(key: "courier.security_notice_hourly_limit", "must be between 1 and 10000 messages.")
        }
        guard !sender.contains(where: { $0 == "\r" || $0 == "\n" }), EmailAddress.bare(sender) != nil else {
            throw ConfigurationError(key: "courier.sender", "must be an address, optionally with a name: Example <no-reply@example.com>.")
        }
        try email.validate("courier.email")
        try sms.validate("courier.sms")
        if sms.delivery == .smtp { throw ConfigurationError(key: "courier.sms", "cannot be delivered by SMTP; use webhook (an SMS gateway) or outbox.") }
        if voice.delivery == .smtp { throw ConfigurationError(key: "courier.voice", "cannot be delivered by SMTP; use webhook (a voice gateway) or outbox.") }
        try voice.validate("courier.voice")
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case sender, email, sms, voice
        case maxAttempts = "max_attempts"
        case retryDelay = "retry_delay"
        case recipientHourlyLimit = "recipient_hourly_limit"
        case securityNoticeHourlyLimit = "security_notice_hourly_limit"
    }
}

/// How one channel's messages leave the server.
public struct DeliverySettings: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Kept in the database for `gatehouse outbox` and written to the log: for development only.
        case outbox
        /// Sent to an SMTP server.
        case smtp
        /// POSTed as JSON to an HTTP endpoint (an SMS gateway or a mail API).
        case webhook
    }

    public var delivery: Kind
    public var smtp: SMTPSettings?
    public var webhook: WebhookSettings?

    /// A delivery of `delivery` kind, with its settings.
    public init(delivery: Kind, smtp: SMTPSettings? = nil, webhook: WebhookSettings? = nil) {
        self.delivery = delivery
        self.smtp = smtp
        self.webhook = webhook
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        delivery = try container.decode(Kind.self, forKey: .delivery)
        smtp = try container.decodeIfPresent(SMTPSettings.self, forKey: .smtp)
        webhook = try container.decodeIfPresent(WebhookSettings.self, forKey: .webhook)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case delivery, smtp, webhook
    }

    package func validate(_ name: String) throws {
        switch delivery {
        case .outbox: break
        case .smtp:
            guard let smtp else { throw ConfigurationError(key: "\(name).delivery", "is smtp but \(name).smtp is missing.") }
            try smtp.validate("\(name).smtp")
        case .webhook:
            guard let webhook else { throw ConfigurationError(key: "\(name).delivery", "is webhook but \(name).webhook is missing.") }
            try webhook.validate("\(name).webhook")
        }
    }
}

/// An SMTP server to submit mail to.
public struct SMTPSettings: Sendable, Codable, Equatable {
    public enum Security: String, Sendable, Codable {
        /// Plain connection upgraded with `STARTTLS` (port 587); refused if the server does not offer it.
        case starttls
        /// TLS from the first byte (port 465).
        case tls
        /// No encryption: only for a relay on loopback.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// A PEM file of certificates to trust instead of the system's (for a private relay).
    public var trustedCertificates: String?
    /// Seconds one delivery may take.
    public var timeout: Int64

    /// An SMTP server at `host`; STARTTLS on port 587 unless told otherwise.
    public init(
        host: String, port: Int = 587, security: Security = .starttls, username: String? = nil, password: String? = nil,
        trustedCertificates: String? = nil, timeout: Int64 = 30
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.trustedCertificates = trustedCertificates
        self.timeout = timeout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let security = try container.decodeIfPresent(Security.self, forKey: .security) ?? .starttls
        self.init(
            host: try container.decode(String.self, forKey: .host),
            port: try container.decodeIfPresent(Int.self, forKey: .port) ?? (security == .tls ? 465 : 587),
            security: security,
            username: try container.decodeIfPresent(String.self, forKey: .username),
            password: try container.decodeIfPresent(String.self, forKey: .password),
            trustedCertificates: try container.decodeIfPresent(String.self, forKey: .trustedCertificates),
            timeout: try container.decodeIfPresent(Int64.self, forKey: .timeout) ?? 30)
    }

    package func validate(_ name: String) throws {
        guard (1...65535).contains(port) else { throw ConfigurationError(key: "\(name).port", "must be between 1 and 65535.") }
        guard (1...300).contains(timeout) else { throw ConfigurationError(key: "\(name).timeout", "must be between 1 and 300 seconds.") }
        if security == .none, !LoopbackHost.contains(host) {
            throw ConfigurationError(key: "\(name).security", "none is only allowed for a relay on loopback; use starttls or tls.")
        }
        if (username == nil) != (password == nil) { throw ConfigurationError(key: "\(name)", "needs both username and password, or neither.") }
        if let trustedCertificates, !FileManager.default.fileExists(atPath: trustedCertificates) {
            throw ConfigurationError("\(name).trusted_certificates: \(trustedCertificates) does not exist.", key: "\(name).trusted_certificates")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, security, username, password, timeout
        case trustedCertificates = "trusted_certificates"
    }
}

/// An HTTP endpoint that takes messages as JSON.
public struct WebhookSettings: Sendable, Codable, Equatable {
    public var url: String
    /// The `Authorization` header to send, e.g. `Bearer …`.
    public var authorization: String?
    /// Seconds one delivery may take.
    public var timeout: Int64

    /// An endpoint at `url` (https, or http on loopback).
    public init(url: String, authorization: String? = nil, timeout: Int64 = 10) {
        self.url = url
        self.authorization = authorization
        self.timeout = timeout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        self.init(
            url: try container.decode(String.self, forKey: .url),
            authorization: try container.decodeIfPresent(String.self, forKey: .authorization),
            timeout: try container.decodeIfPresent(Int64.self, forKey: .timeout) ?? 10)
    }

    package func validate(_ name: String) throws {
        guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), let host = url.host else {
            throw ConfigurationError(key: "\(name).url", "must be an http or https URL.")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw ConfigurationError(key: "\(name).url", "must use https (plain http only on loopback).")
        }
        guard (1...300).contains(timeout) else { throw ConfigurationError(key: "\(name).timeout", "must be between 1 and 300 seconds.") }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case url, authorization, timeout
    }
}
