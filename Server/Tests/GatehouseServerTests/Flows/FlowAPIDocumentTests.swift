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

    @Test("each step is a node variant listing the actions that step may offer, and a submission names one of every action id")
    func stepsAndActions() throws {
        let text = FlowAPIDocument.text(issuer: "https://id.example.com")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let variants = try #require((schemas["FlowNode"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        var described: [String: [String: Any]] = [:]
        for variant in variants {
            let properties = try #require(variant["properties"] as? [String: Any])
            let id = try #require((properties["id"] as? [String: Any])?["const"] as? String)
            #expect(variant["title"] as? String == id)
            #expect(described[id] == nil, "\(id) is described once")
            described[id] = properties
        }
        #expect(Set(described.keys) == Set(FlowStep.allCases.map(\.rawValue)))
        for step in FlowStep.allCases {
            let properties = try #require(described[step.rawValue], "\(step.rawValue) has a variant")
            let items = try #require((properties["actions"] as? [String: Any])?["items"] as? [String: Any])
            let actionID = try #require((items["properties"] as? [String: Any])?["id"] as? [String: Any])
            // With identity providers the id is the step's enum or a provider's `idp:` id; without, only the enum.
            let choices = actionID["anyOf"] as? [[String: Any]] ?? [actionID]
            #expect(choices.count == (step.offersIdentityProviders ? 2 : 1), "\(step.rawValue)")
            #expect(choices.first?["enum"] as? [String] == step.actions.map(\.rawValue), "\(step.rawValue)")
            if step.offersIdentityProviders {
                #expect(choices.last?["pattern"] as? String == "^" + FlowActionID.identityProviderPrefix)
            }
        }
        let submission = try #require((schemas["FlowSubmission"] as? [String: Any])?["properties"] as? [String: Any])
        #expect((submission["action"] as? [String: Any])?["enum"] as? [String] == FlowActionID.allCases.map(\.rawValue))
    }

    @Test("every action a step may offer is an action id a submission can name, and only the sign-in steps offer other providers")
    func stepActionsAreKnown() {
        for step in FlowStep.allCases {
            #expect(!step.actions.isEmpty, "\(step.rawValue) offers something to do")
            #expect(Set(step.actions).count == step.actions.count, "\(step.rawValue) lists each action once")
            #expect(!step.actions.contains(.identityProviderCallback), "the callback is submitted, never offered")
            #expect(step.offers("idp:github") == step.offersIdentityProviders)
            #expect(!step.offers("bogus"))
        }
    }
}
