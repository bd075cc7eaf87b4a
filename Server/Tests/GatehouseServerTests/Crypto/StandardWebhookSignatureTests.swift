import Foundation
import Testing

@testable import GatehouseFoundation

@Suite("Standard Webhooks signatures")
struct StandardWebhookSignatureTests {
    @Test("the Standard Webhooks libraries' example: a whsec_ secret, an id, a timestamp and a body give its signature")
    func publishedExample() {
        let signer = StandardWebhookSignature(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let headers = signer.headers(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8))
        #expect(headers.map(\.name) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers.map(\.value) == ["msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="])
    }

    @Test("a secret without the prefix is its bytes; another body, id or time signs differently")
    func plainSecret() {
        let signer = StandardWebhookSignature(secret: "siem-hmac-secret-0123456789-abcdefghijklmnop")
        let base = signer.headers(id: "a", timestamp: 1, body: Data("x".utf8))[2].value
        #expect(base != signer.headers(id: "b", timestamp: 1, body: Data("x".utf8))[2].value)
        #expect(base != signer.headers(id: "a", timestamp: 2, body: Data("x".utf8))[2].value)
        #expect(base != signer.headers(id: "a", timestamp: 1, body: Data("y".utf8))[2].value)
        #expect(base != StandardWebhookSignature(secret: "whsec_c2llbS1obWFjLXNlY3JldA==").headers(id: "a", timestamp: 1, body: Data("x".utf8))[2].value)
    }
}
