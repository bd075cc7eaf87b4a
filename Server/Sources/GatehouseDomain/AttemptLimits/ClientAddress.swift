import NIOCore

/// Where a request comes from, as the per-source attempt limits count it: an IPv4 address, or the /64 network of an
/// IPv6 address (one subscriber usually holds a whole /64, so counting single IPv6 addresses would count nothing).
package struct ClientAddress: Sendable, Equatable, CustomStringConvertible {
    /// The text the counter is keyed by: `v4:198.51.100.7`, `v6:2001:db8:0:1::/64`, or `unknown`.
    package let subject: String
    /// The whole address as text (`198.51.100.7`, `2001:db8::1`), for people to read, e.g. on a QR approval screen.
    package var text: String?

    package static let unknown = ClientAddress(subject: "unknown")

    package init(subject: String, text: String? = nil) {
        self.subject = subject
        self.text = text
    }

    /// The source of a connection whose peer is `address` (`nil` in-process, where there is no socket).
    package init(_ address: SocketAddress?) {
        switch address?.ipBytes {
        case let bytes? where bytes.count == 4:
            self.init(subject: "v4:" + bytes.map(String.init).joined(separator: "."))
        case let bytes? where bytes.count == 16:
            let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            self.init(subject: "v6:" + groups.joined(separator: ":") + "::/64")
        default:
            self = .unknown
        }
        text = address?.ipAddress
    }

    package var description: String { subject }

    /// Two addresses are the same source when they are counted together, e.g. two addresses of one IPv6 /64.
    package static func == (lhs: ClientAddress, rhs: ClientAddress) -> Bool { lhs.subject == rhs.subject }
}
