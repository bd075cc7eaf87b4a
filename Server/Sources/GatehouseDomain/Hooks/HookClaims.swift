import Foundation

/// Claims hooks added to a token, each a name and its JSON value as the hook wrote it.
package struct HookClaims: Sendable, Equatable {
    package var members: [(name: String, json: [UInt8])] = []

    package init() {}

    package var isEmpty: Bool { members.isEmpty }

    /// The claims of `answer`'s member `token` (`id_token`), each checked to begin with `namespace`.
    /// - Throws: ``HookCaller/Failure`` for an answer of another shape, or a claim outside the namespace.
    package static func read(_ answer: Data, token: String, namespace: String, allowedMembers: Set<String>) throws -> HookClaims {
        try read(try HookAnswer.object(answer, members: allowedMembers), token: token, namespace: namespace)
    }

    /// The claims of the answer `object`'s member `token`, each checked to begin with `namespace`.
    package static func read(_ object: [String: Any], token: String, namespace: String) throws -> HookClaims {
        guard let member = object[token] else { return HookClaims() }
        guard let claims = member as? [String: Any] else { throw HookCaller.Failure(description: "its \(token) is not a JSON object") }
        var read = HookClaims()
        for name in claims.keys.sorted() {
            guard name.hasPrefix(namespace), name.count > namespace.count else {
                throw HookCaller.Failure(description: "its claim \(name) is outside its namespace \(namespace)")
            }
            let value = try JSONSerialization.data(withJSONObject: claims[name] as Any, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
            read.members.append((name, Array(value)))
        }
        return read
    }

    /// The claims as one JSON object, to keep with a token.
    package var storedJSON: String {
        let pairs = members.map { name, json in
            let key = (try? JSONSerialization.data(withJSONObject: name, options: .fragmentsAllowed)) ?? Data("\"\"".utf8)
            return String(decoding: key, as: UTF8.self) + ":" + String(decoding: json, as: UTF8.self)
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// The claims kept as ``storedJSON``; none for `nil` or a text that is not a JSON object.
    package init(storedJSON: String?) {
        guard let storedJSON, let object = (try? JSONSerialization.jsonObject(with: Data(storedJSON.utf8))) as? [String: Any] else { return }
        for name in object.keys.sorted() {
            guard
                let value = try? JSONSerialization.data(
                    withJSONObject: object[name] as Any, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
            else { continue }
            members.append((name, Array(value)))
        }
    }

    package static func == (lhs: HookClaims, rhs: HookClaims) -> Bool {
        lhs.members.map(\.name) == rhs.members.map(\.name) && lhs.members.map(\.json) == rhs.members.map(\.json)
    }
}
