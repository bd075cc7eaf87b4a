/// Why a push was not handed over; `unregistered` when the platform says the token is no longer valid.
package struct PushFailure: Error, CustomStringConvertible {
    package var description: String
    package var unregistered = false

    package init(_ description: String, unregistered: Bool = false) {
        self.description = description
        self.unregistered = unregistered
    }
}
