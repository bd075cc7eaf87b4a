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

    package static func == (lhs: HookClaims, rhs: HookClaims) -> Bool {
        lhs.members.map(\.name) == rhs.members.map(\.name) && lhs.members.map(\.json) == rhs.members.map(\.json)
    }
}
