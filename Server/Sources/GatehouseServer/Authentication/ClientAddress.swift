import Hummingbird
import NIOCore

/// Where a request comes from, as the per-source attempt limits count it: an IPv4 address, or the /64 network of an
/// IPv6 address (one subscriber usually holds a whole /64, so counting single IPv6 addresses would count nothing).
struct ClientAddress: Sendable, Equatable, CustomStringConvertible {
    /// The text the counter is keyed by: `v4:198.51.100.7`, `v6:2001:db8:0:1::/64`, or `unknown`.
    let subject: String
    /// The whole address as text (`198.51.100.7`, `2001:db8::1`), for people to read, e.g. on a QR approval screen.
    var text: String?

    static let unknown = ClientAddress(subject: "unknown")

    init(subject: String, text: String? = nil) {
        self.subject = subject
        self.text = text
    }

    /// The source of a connection whose peer is `address` (`nil` in-process, where there is no socket).
    init(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4):
            self.init(subject: "v4:" + Self.dotted(UInt32(bigEndian: v4.address.sin_addr.s_addr)))
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            // An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is the IPv4 client it stands for.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                let value = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                self.init(subject: "v4:" + Self.dotted(value))
            } else {
                let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                self.init(subject: "v6:" + groups.joined(separator: ":") + "::/64")
            }
        default:
            self = .unknown
        }
        text = address?.ipAddress
    }

    /// The source of a request seen through `context`; contexts that do not know the peer give ``unknown``.
    init(of context: some RequestContext) {
        self.init((context as? any RemoteAddressRequestContext)?.remoteAddress)
    }

    var description: String { subject }

    private static func dotted(_ value: UInt32) -> String {
        [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xff) }.joined(separator: ".")
    }
}
