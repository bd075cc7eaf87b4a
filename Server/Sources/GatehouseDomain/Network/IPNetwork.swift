import NIOCore

/// An IP network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`), or a single address (`127.0.0.1`, `::1`).
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network's address: 4 bytes for IPv4, 16 for IPv6.
    package let bytes: [UInt8]
    /// How many leading bits an address must share with ``bytes`` to belong to the network.
    package let prefixLength: Int
    public let description: String

    /// The network `text` spells, or `nil` when it is not an address with an optional `/prefix`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = try? SocketAddress(ipAddress: String(parts[0]), port: 0), let bytes = address.ipBytes else { return nil }
        var length = bytes.count * 8
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...length).contains(given) else { return nil }
            length = given
        }
        self.bytes = bytes
        prefixLength = length
        description = text
    }

    /// Whether `address` is in this network; IPv4 addresses mapped into IPv6 count as the IPv4 address.
    package func contains(_ address: SocketAddress) -> Bool {
        guard let other = address.ipBytes, other.count == bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(bytes, other) where remaining > 0 {
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - min(8, remaining)))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }
}

extension SocketAddress {
    /// The address's bytes: 4 for IPv4 (also when mapped into IPv6 as `::ffff:a.b.c.d`), 16 for IPv6; `nil` for Unix sockets.
    package var ipBytes: [UInt8]? {
        switch self {
        case .v4(let v4):
            let value = UInt32(bigEndian: v4.address.sin_addr.s_addr)
            return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
        case .v6(let v6):
            var storage = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &storage) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12..<16]) }
            return bytes
        default:
            return nil
        }
    }
}
