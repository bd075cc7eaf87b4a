import Foundation
import NIOCore

/// Host names that can only mean this machine, where plain `http` is allowed (an issuer in development, a delivery
/// webhook beside the server).
package enum LoopbackHost {
    /// Whether `host` is `localhost` or a literal loopback address: IPv4 in 127.0.0.0/8 written as four decimal numbers,
    /// or IPv6 `::1` (possibly in brackets). A name that only starts like one (`127.0.0.1.example`,
    /// `127.attacker.example`) is someone's domain, resolved by DNS, and is not.
    package static func contains(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.lowercased() == "localhost" { return true }
        // inet_pton's forms only: no shortened or octal IPv4, no zone.
        guard !bare.contains("%"), let address = try? SocketAddress(ipAddress: bare, port: 0) else { return false }
        switch address {
        case .v4(let v4): return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            return bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        default: return false
        }
    }
}
