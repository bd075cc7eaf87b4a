import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device authenticator's checks that need no server: QR payloads, app versions, service descriptions.
@Suite("Device authenticator without a server")
struct DeviceAuthenticatorUnitTests {
    /// Answers every request with one fixed status and body.
    struct FixedAnswer: HTTPTransport {
        let status: Int
        let body: String

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            (Data(body.utf8), HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)!)
        }
    }

    static let app = AuthenticatorApp(name: "unit", version: "1.0.0")
    static let serviceURL = URL(string: "https://id.example.com/authenticator")!

    @Test("a Gatehouse QR payload gives the service URL and access code; anything else is not ours")
    func payloads() throws {
        let payload = try QRLoginPayload(parsing: " https://id.example.com/authenticator#AbCdEfGhIjKlMnOpQrStUv_- \n")
        #expect(payload.serviceURL == Self.serviceURL && payload.accessCode == "AbCdEfGhIjKlMnOpQrStUv_-")
        #expect(payload.text == "https://id.example.com/authenticator#AbCdEfGhIjKlMnOpQrStUv_-")
        for text in [
            "otpauth://totp/x?secret=ABC", "https://id.example.com/authenticator", "https://id.example.com/other#AbCdEfGhIjKlMnOpQrStUv",
            "https://id.example.com/authenticator#short", "ftp://id.example.com/authenticator#AbCdEfGhIjKlMnOpQrStUv",
            "https://id.example.com/authenticator#AbCdEfGhIjKlMnOpQrSt<script>", "",
        ] {
            #expect(throws: DeviceAuthenticatorError.notAGatehouseCode) { try QRLoginPayload(parsing: text) }
        }
    }

    @Test("app versions compare part by part")
    func versions() throws {
        let sorted = ["0.9", "1", "1.0.1", "1.2", "1.10", "2.0.0.1"].compactMap(AppVersion.init)
        #expect(sorted.count == 6 && sorted == sorted.sorted())
        #expect(AppVersion("1.0") == AppVersion("1.0.0"))
        for bad in ["", "1.", "v1", "1.-2", "1.2.3.4.5", "1..2"] { #expect(AppVersion(bad) == nil) }
    }

    @Test("a description missing a field, speaking another protocol, or sending secrets elsewhere is refused")
    func descriptions() async throws {
        func description(_ changes: [String: Any], removing: String? = nil) throws -> String {
            var object: [String: Any] = [
                "protocol": PINProtocol.version, "service_name": "Example", "issuer": "https://id.example.com", "pin_length": 4,
                "verification_methods": ["code"], "minimum_app_version": "1.0",
                "endpoints": [
                    "registration": "https://id.example.com/authenticator/registration", "identity": "https://id.example.com/authenticator/identity",
                    "sessions": "https://id.example.com/authenticator/sessions",
                ],
            ]
            object.merge(changes) { $1 }
            if let removing { object[removing] = nil }
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        func service(_ body: String, status: Int = 200) async throws(DeviceAuthenticatorError) -> AuthenticatorService {
            try await DeviceAuthenticator(app: Self.app, storage: MemoryTokenStorage(), transport: FixedAnswer(status: status, body: body))
                .service(at: Self.serviceURL)
        }
        #expect(try await service(try description([:])).name == "Example")
        await #expect(throws: DeviceAuthenticatorError.invalidServiceDescription("pin_length is missing")) {
            try await service(try description([:], removing: "pin_length"))
        }
        await #expect(throws: DeviceAuthenticatorError.invalidServiceDescription("pin_length 8 is not 4 to 6")) {
            try await service(try description(["pin_length": 8]))
        }
        await #expect(throws: DeviceAuthenticatorError.invalidServiceDescription("it speaks other-v9, not gatehouse-pin-v1")) {
            try await service(try description(["protocol": "other-v9"]))
        }
        await #expect(throws: DeviceAuthenticatorError.invalidServiceDescription("the endpoint https://evil.example.net/steal is not on id.example.com")) {
            try await service(
                try description([
                    "endpoints": [
                        "registration": "https://evil.example.net/steal", "identity": "https://id.example.com/a",
                        "sessions": "https://id.example.com/b",
                    ]
                ]))
        }
        await #expect(throws: DeviceAuthenticatorError.invalidServiceDescription("the answer is not a service description")) { try await service("<html>") }
        await #expect(throws: DeviceAuthenticatorError.appNotAllowed) {
            try await service(#"{"error":"app_not_allowed","error_description":"The app unit cannot be used with this service."}"#, status: 406)
        }
        await #expect(throws: DeviceAuthenticatorError.updateRequired(minimumVersion: "2.1.0")) {
            try await service(
                #"{"error":"app_version_unsupported","error_description":"This service needs version 2.1.0 of the app or later; update the app."}"#, status: 412
            )
        }
    }

    @Test("a push's payload is read from APNs' object, FCM's JSON text, or a whole FCM message; other notifications are not ours")
    func pushPayloads() throws {
        let expected = PushApprovalPayload(service: Self.serviceURL.absoluteString, identityID: "id-1", sessionID: "s-1")
        let members = #""service": "https://id.example.com/authenticator", "identity_id": "id-1", "session_id": "s-1""#
        let apns = #"{"aps": {"alert": {"title": "Sign in?"}}, "gatehouse": {\#(members)}}"#
        let text = String(decoding: try JSONEncoder().encode(expected), as: UTF8.self)
        let fcm = try JSONSerialization.data(withJSONObject: ["gatehouse": text])
        let message = try JSONSerialization.data(withJSONObject: ["data": ["gatehouse": text], "notification": ["title": "Sign in?"]])
        #expect(DeviceAuthenticator.pushPayload(in: Data(apns.utf8)) == expected)
        #expect(DeviceAuthenticator.pushPayload(in: fcm) == expected)
        #expect(DeviceAuthenticator.pushPayload(in: message) == expected)
        for other in [#"{"aps": {}}"#, #"{"gatehouse": {"service": "x"}}"#, "not json", #"{"gatehouse": 7}"#] {
            #expect(DeviceAuthenticator.pushPayload(in: Data(other.utf8)) == nil, "\(other)")
        }
    }

    @Test("a push is refused unread when it names an identity this device does not have, or a service the app does not serve")
    func foreignPushes() async throws {
        let push = Data(#"{"gatehouse": {"service": "https://id.example.com/authenticator", "identity_id": "nobody", "session_id": "s"}}"#.utf8)
        let any = DeviceAuthenticator(app: Self.app, storage: MemoryTokenStorage(), transport: FixedAnswer(status: 500, body: ""))
        await #expect(throws: DeviceAuthenticatorError.notAGatehousePush) { _ = try await any.handlePush(push) }
        let narrow = DeviceAuthenticator(
            app: Self.app, storage: MemoryTokenStorage(), transport: FixedAnswer(status: 500, body: ""),
            trustedServices: [URL(string: "https://id.other.example/authenticator")!])
        await #expect(throws: DeviceAuthenticatorError.untrustedService("id.example.com")) { _ = try await narrow.handlePush(push) }
    }
}
