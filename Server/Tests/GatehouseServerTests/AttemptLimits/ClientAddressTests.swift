import NIOCore
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

@Suite("Client addresses as the per-source limits count them")
struct ClientAddressTests {
    @Test("IPv4 by address, IPv6 by its /64, an IPv4-mapped IPv6 address as the IPv4 client, no socket as unknown")
    func subjects() throws {
        #expect(ClientAddress(try SocketAddress(ipAddress: "198.51.100.7", port: 443)).subject == "v4:198.51.100.7")
        let one = ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:1:aaaa::1", port: 443))
        let sameNetwork = ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:1:ffff:ffff:ffff:ffff", port: 1))
        let otherNetwork = ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:2::1", port: 443))
        #expect(one.subject == "v6:2001:db8:0:1::/64")
        #expect(one == sameNetwork && one != otherNetwork)
        #expect(ClientAddress(try SocketAddress(ipAddress: "::ffff:192.0.2.9", port: 80)).subject == "v4:192.0.2.9")
        #expect(ClientAddress(nil) == .unknown)
    }
}
