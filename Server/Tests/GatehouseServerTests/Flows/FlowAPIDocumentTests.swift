import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseServer

@Suite("The flow API's OpenAPI document")
struct FlowAPIDocumentTests {
    @Test("it is JSON naming the issuer as its server, with a start path for every flow kind and the submission path")
    func everyFlowKind() throws {
        let text = FlowAPIDocument.text(issuer: "https://id.example.com")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        #expect((document["servers"] as? [[String: Any]])?.first?["url"] as? String == "https://id.example.com")
        let paths = Set(try #require(document["paths"] as? [String: Any]).keys)
        #expect(paths == Set(FlowKind.allCases.map { "/flows/\($0.rawValue)" } + ["/flows/{flow_id}"]))
        // The submission schema names what the server reads.
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let submission = try #require((schemas["FlowSubmission"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(submission.keys) == ["client_id", "action", "values", "device_tokens"])
        // The categories it lists are the protocol's, every one of them.
        let node = try #require((schemas["FlowNode"] as? [String: Any])?["properties"] as? [String: Any])
        let categories = try #require((node["category"] as? [String: Any])?["enum"] as? [String])
        #expect(categories == FlowCategory.allCases.map(\.rawValue))
    }
}
