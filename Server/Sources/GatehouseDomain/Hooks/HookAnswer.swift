import Foundation

/// How every point reads a hook's answer: one JSON object with only the members the point takes, and the person's
/// words in `message`.
enum HookAnswer {
    /// The answer as a JSON object whose members are all among `members`.
    static func object(_ answer: Data, members: Set<String>) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw HookCaller.Failure(description: "its answer is not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !members.contains($0) }) {
            throw HookCaller.Failure(description: "its answer has the member \(unknown), which this point does not take")
        }
        return object
    }

    /// The longest message for the person a hook may give.
    static let maximumMessage = 300

    /// `message`, when there is one: text of 1 to ``maximumMessage`` characters.
    static func message(in object: [String: Any]) throws -> String? {
        guard let value = object["message"] else { return nil }
        guard let message = value as? String, !message.isEmpty, message.count <= maximumMessage else {
            throw HookCaller.Failure(description: "its message is not text of 1 to \(maximumMessage) characters")
        }
        return message
    }
}

/// The account a hook is told about.
struct HookPerson: Encodable {
    var id: String
    var username: String
    var email: String?

    init(_ user: User) {
        id = user.id
        username = user.username
        email = user.email
    }
}
