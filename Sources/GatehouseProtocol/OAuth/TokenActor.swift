/// Who acts on a token's subject's behalf (RFC 8693 §4.1, the `act` claim): the party named by `subject`, itself
/// possibly acting for an earlier one (`actor`), most recent first.
public final class TokenActor: Codable, Sendable, Equatable {
    /// The actor: for Gatehouse, the client that exchanged the token.
    public let subject: String
    /// The actor before it, when the exchanged token had one.
    public let actor: TokenActor?

    /// An actor `subject`, after `actor`.
    public init(subject: String, actor: TokenActor? = nil) {
        self.subject = subject
        self.actor = actor
    }

    /// The chain of actors `subjects`, most recent first; `nil` for none.
    public static func chain(_ subjects: [String]) -> TokenActor? {
        subjects.reversed().reduce(nil as TokenActor?) { earlier, subject in TokenActor(subject: subject, actor: earlier) }
    }

    /// The actors, most recent first.
    public var subjects: [String] { [subject] + (actor?.subjects ?? []) }

    /// Actors are equal when their chains are.
    public static func == (lhs: TokenActor, rhs: TokenActor) -> Bool { lhs.subjects == rhs.subjects }

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case actor = "act"
    }
}
