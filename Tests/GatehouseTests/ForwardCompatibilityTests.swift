import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app already released meets a newer server: a node with a field kind, an action kind, a category and an id this
/// version has never heard of still decodes, keeps what it did not understand, renders generically and submits.
@Suite("Nodes from a newer server")
struct ForwardCompatibilityTests {
    /// A node as a newer server might send it: a signature pad, a scan action, an age-check category.
    static let future = Data(
        """
        {"id": "kyc.age", "name": "Confirm your age", "description": "We need to know you are over 18.", "category": "age_check",
         "fields": [
           {"key": "note", "type": "label", "label": "Use the document you registered with.", "required": false},
           {"key": "age_proof", "type": "signature_pad", "label": "Sign here", "required": true, "hologram": {"layers": 3}},
           {"key": "nickname", "type": "text", "label": "Nickname", "required": false}
         ],
         "actions": [
           {"id": "scan_document", "type": "document_scan", "label": "Scan your ID", "camera": "rear"},
           {"id": "cancel", "type": "submit", "label": "Cancel"}
         ],
         "messages": [], "code_source": "smart_card"}
        """.utf8)

    @Test("unknown field kinds, action kinds, categories and ids decode, keep their wire names, and encode back")
    func decodesAndKeeps() throws {
        let node = try JSONDecoder().decode(FlowNode.self, from: Self.future)
        #expect(node.fields[1].kind == .unknown("signature_pad") && !node.fields[1].kind.isKnown)
        #expect(node.actions[0].kind == .unknown("document_scan"))
        #expect(node.fields[0].kind == .label && node.fields[0].kind.isKnown && node.actions[1].kind == .submit)
        #expect(node.knownCategory == nil && node.category == "age_check" && node.step == nil)
        let again = try JSONSerialization.jsonObject(with: JSONEncoder().encode(node)) as? [String: Any]
        let fields = try #require(again?["fields"] as? [[String: Any]])
        let actions = try #require(again?["actions"] as? [[String: Any]])
        #expect(fields[1]["type"] as? String == "signature_pad" && actions[0]["type"] as? String == "document_scan")
        // A code source from a newer server is kept too.
        #expect(node.codeSource == .unknown("smart_card") && again?["code_source"] as? String == "smart_card")
        // Every known kind still reads as itself.
        for kind in FlowField.Kind.known { #expect(FlowField.Kind(rawValue: kind.rawValue) == kind) }
        for kind in FlowAction.Kind.known { #expect(FlowAction.Kind(rawValue: kind.rawValue) == kind) }
        for source in CodeSource.known { #expect(CodeSource(rawValue: source.rawValue) == source) }
        #expect(CodeSource.known.map(\.rawValue) == ["totp", "sms", "voice", "email", "recovery_code"])
    }

    @Test("walked generically, the unknown field is text to fill in and the unknown action a button that submits")
    func walksGenerically() async throws {
        let provider = MockProvider(firstNode: try JSONDecoder().decode(FlowNode.self, from: Self.future))
        guard case .continue(var node) = await FlowTests.client(provider).start() else {
            Issue.record("expected a continue node")
            return
        }
        #expect(node.category == "age_check" && node.step == nil && node.id == "kyc.age" && node.status == .other("age_check"))
        // What a generic renderer does: show labels, fill every input it finds, press the first button.
        for collector in node.collectors {
            guard let field = collector.field else { continue }
            node[field.key] = field.key == "age_proof" ? "drawn:ab12" : "Al"
        }
        let inputs = node.collectors.compactMap(\.field).map(\.key)
        #expect(inputs == ["age_proof", "nickname"])
        let scan = try #require(node.submits.first)
        #expect(scan.id == "scan_document" && scan.label == "Scan your ID")
        _ = await node.next(scan)
        let sent = try #require(await provider.submissions.last)
        #expect(sent.action == "scan_document" && sent.values["age_proof"] == .text("drawn:ab12") && sent.values["nickname"] == .text("Al"))
    }
}
