import Foundation
import GatehouseFoundation

/// How sign-in pushes reach authenticator apps (`push`): Apple's provider API for iOS apps (`apns`) and Firebase
/// Cloud Messaging for Android apps (`fcm`). A platform left out keeps its pushes in the development outbox (logged,
/// and readable by tests), as the courier does with messages.
public struct PushSettings: Sendable, Decodable, Equatable {
    /// Apple Push Notification service, with token-based authentication (a `.p8` key from the developer account).
    public var apns: APNs?
    /// Firebase Cloud Messaging HTTP v1, with a service account's key.
    public var fcm: FCM?
    /// Seconds one push may take to hand over, connecting included.
    public var timeout: Int64 = 5

    public struct APNs: Sendable, Decodable, Equatable {
        public var teamID = ""
        public var keyID = ""
        /// The P-256 key (`AuthKey_KEYID.p8`) the provider tokens are signed with.
        public var privateKeyFile = ""
        /// The app's bundle id (`apns-topic`).
        public var topic = ""
        /// `https://api.push.apple.com`, or `https://api.sandbox.push.apple.com` for development builds.
        public var endpoint = "https://api.push.apple.com"
        /// Extra certificate authorities to trust (PEM), for a gateway of your own in front of Apple's.
        public var caFile: String?

        public init(teamID: String, keyID: String, privateKeyFile: String, topic: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyFile = privateKeyFile
            self.topic = topic
        }

        public init(from decoder: any Decoder) throws {
            let section = try decoder.section(CodingKeys.self)
            try section.update(&teamID, .teamID)
            try section.update(&keyID, .keyID)
            try section.update(&privateKeyFile, .privateKeyFile)
            try section.update(&topic, .topic)
            try section.update(&endpoint, .endpoint)
            try section.update(&caFile, .caFile)
        }

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case topic, endpoint
            case teamID = "team_id"
            case keyID = "key_id"
            case privateKeyFile = "private_key_file"
            case caFile = "ca_file"
        }
    }

    public struct FCM: Sendable, Decodable, Equatable {
        /// The service account's JSON key (its `project_id`, `client_email`, `private_key` and `token_uri` are read).
        public var serviceAccountFile = ""
        /// `https://fcm.googleapis.com`.
        public var endpoint = "https://fcm.googleapis.com"
        /// Extra certificate authorities to trust (PEM).
        public var caFile: String?

        public init(serviceAccountFile: String) {
            self.serviceAccountFile = serviceAccountFile
        }

        public init(from decoder: any Decoder) throws {
            let section = try decoder.section(CodingKeys.self)
            try section.update(&serviceAccountFile, .serviceAccountFile)
            try section.update(&endpoint, .endpoint)
            try section.update(&caFile, .caFile)
        }

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case endpoint
            case serviceAccountFile = "service_account_file"
            case caFile = "ca_file"
        }
    }

    /// Pushes stay in the outbox.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let section = try decoder.section(CodingKeys.self)
        try section.update(&apns, .apns)
        try section.update(&fcm, .fcm)
        try section.update(&timeout, .timeout)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case apns, fcm, timeout
    }

    /// Checks what can be checked at start: the keys load, the URLs are https (plain http only on loopback).
    package func validate() throws {
        guard (1...30).contains(timeout) else { throw ConfigurationError(key: "push.timeout", "must be 1 to 30 seconds, not \(timeout).") }
        if let apns {
            for (value, key) in [(apns.teamID, "team_id"), (apns.keyID, "key_id"), (apns.topic, "topic")] where value.isEmpty {
                throw ConfigurationError(key: "push.apns.\(key)", "is required.")
            }
            try Self.checkURL(apns.endpoint, key: "push.apns.endpoint")
            _ = try APNsSender.providerKey(apns.privateKeyFile)
        }
        if let fcm {
            try Self.checkURL(fcm.endpoint, key: "push.fcm.endpoint")
            _ = try FCMServiceAccount(file: fcm.serviceAccountFile)
        }
    }

    static func checkURL(_ value: String, key: String) throws {
        guard let url = URL(string: value), let host = url.host, url.scheme == "https" || (url.scheme == "http" && LoopbackHost.contains(host)) else {
            throw ConfigurationError(key: key, "must be an https URL (plain http only on loopback), not \(value).")
        }
    }
}
