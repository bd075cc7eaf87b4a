import NIOCore

/// Whether an address is on the public internet: what a server fetching URLs that strangers name (client metadata
/// documents) may connect to, so that nobody makes it reach its own loopback, private networks or cloud metadata
/// services (server-side request forgery).
package enum PublicAddress {
    /// Networks that are not the public internet (RFC 6890's special-purpose registries, in short).
    package static let specialNetworks: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
        // IPv6 that carries an IPv4 address inside (IPv4-compatible, 6to4, Teredo), which may be a private one, and
        // the old site-local range.
        "::/96", "2002::/16", "2001::/32", "fec0::/10",
    ].compactMap(IPNetwork.init)

    /// Whether `address` is outside every special network (an IPv4 address mapped into IPv6 counts as itself).
    package static func contains(_ address: SocketAddress) -> Bool {
        guard address.ipBytes != nil else { return false }
        return !specialNetworks.contains { $0.contains(address) }
    }
}
