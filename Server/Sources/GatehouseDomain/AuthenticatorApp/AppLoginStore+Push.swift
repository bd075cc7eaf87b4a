import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Sign-ins sent to a device by push instead of shown as a QR code: the session is claimed for the identity from the
/// start, and carries the number the browser shows with the three numbers the app offers, fixed when it is made.
extension AppLoginStore {
    /// A pushed session as its device reads it.
    package struct Pushed: Sendable {
        package var claimed: Claimed
        package var numberChoices: [Int]
    }

    /// A new pushed session for the browser flow `flowID` and identity `identityID` of `userID`, replacing the flow's
    /// earlier sessions; returns its id and the number the browser shows.
    package func createPush(
        flowID: String, clientName: String, requester: Requester, identityID: String, userID: String, lifetime: Int64
    ) async throws -> (id: String, number: Int) {
        let id = SecureRandom.token(byteCount: 16)
        var generator = SystemRandomNumberGenerator()
        var choices: Set<Int> = []
        while choices.count < 3 { choices.insert(Int.random(in: 10...99, using: &generator)) }
        let offered = choices.shuffled(using: &generator)
        let number = offered[Int.random(in: 0..<3, using: &generator)]
        let now = clock.now()
        let flowHash = TokenDigest.hex(flowID)
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM app_logins WHERE flow_hash = \(bind: flowHash)").run()
            // No access code is shown: the column's unique value is one nobody holds.
            try await sql.raw(
                """
                INSERT INTO app_logins (id, code_hash, flow_hash, client_name, status, identity_id, user_id, created_at, expires_at,
                    requester_address, requester_agent, number, number_choices)
                VALUES (\(bind: id), \(bind: TokenDigest.hex(SecureRandom.token())), \(bind: flowHash), \(bind: clientName),
                        \(bind: Status.claimed.rawValue), \(bind: identityID), \(bind: userID), \(bind: now), \(bind: now + lifetime),
                        \(bind: requester.address), \(bind: requester.userAgent.map { String($0.prefix(256)) }), \(bind: number),
                        \(bind: offered.map(String.init).joined(separator: ",")))
                """
            ).run()
        }
        return (id, number)
    }

    /// The pushed session `id` waiting for `identityID`'s answer; `nil` when it is not (another's, answered, expired).
    package func pushed(_ id: String, identityID: String) async throws -> Pushed? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, client_name, expires_at, created_at, requester_address, requester_agent, number_choices FROM app_logins
                WHERE id = \(bind: id) AND identity_id = \(bind: identityID) AND status = \(bind: Status.claimed.rawValue)
                    AND number IS NOT NULL AND expires_at > \(bind: now)
                """
            ).first()
        }
        guard let row else { return nil }
        let choices = (try row.decode(column: "number_choices", as: String?.self) ?? "").split(separator: ",").compactMap { Int($0) }
        return Pushed(claimed: try Claimed(row: row), numberChoices: choices)
    }
}
