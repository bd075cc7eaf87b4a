import Foundation

/// Host names that can only mean this machine, where plain `http` is allowed (an issuer in development, a delivery
/// webhook beside the server).
package enum LoopbackHost {
    /// Whether `host` (a name or an address, IPv6 possibly in brackets) is `localhost`, `::1` or in 127.0.0.0/8.
    package static func contains(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
