import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Client addresses behind trusted proxies")
struct TrustedProxiesTests {
    /// An address written in the test itself, so it always parses.
    static func address(_ text: String) -> SocketAddress {
        try! SocketAddress(ipAddress: text, port: 0)
    }

    static func headers(_ name: String, _ values: String...) -> HTTPFields {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test("networks in CIDR notation contain what they should, for IPv4, IPv6 and IPv4 mapped into IPv6")
    func networks() throws {
        let private10 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(private10.contains(Self.address("10.200.3.4")))
        #expect(!private10.contains(Self.address("11.0.0.1")))
        #expect(private10.contains(Self.address("::ffff:10.1.2.3")))
        let odd = try #require(IPNetwork("192.168.4.0/22"))
        #expect(odd.contains(Self.address("192.168.7.255")) && !odd.contains(Self.address("192.168.8.0")))
        let documentation = try #require(IPNetwork("2001:db8::/32"))
        #expect(documentation.contains(Self.address("2001:db8:ffff::1")) && !documentation.contains(Self.address("2001:db9::1")))
        #expect(!documentation.contains(Self.address("10.0.0.1")))
        let single = try #require(IPNetwork("127.0.0.1"))
        #expect(single.contains(Self.address("127.0.0.1")) && !single.contains(Self.address("127.0.0.2")))
        for bad in ["", "10.0.0.0/33", "10.0.0/8", "example.com", "::1/129", "10.0.0.0/-1", "10.0.0.0/x"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test("the client is read from the nearest hop outwards and only through trusted proxies")
    func walk() throws {
        let proxies = TrustedProxies(addresses: [try #require(IPNetwork("127.0.0.1")), try #require(IPNetwork("10.0.0.0/8"))])
        let proxy = Self.address("127.0.0.1")
        // One proxy in front: the address it appended.
        #expect(proxies.client(behind: proxy, headers: Self.headers("X-Forwarded-For", "198.51.100.7")).ipAddress == "198.51.100.7")
        // A client that wrote its own header: the proxy appended the real address, which is where reading stops.
        #expect(proxies.client(behind: proxy, headers: Self.headers("X-Forwarded-For", "203.0.113.9, 198.51.100.7")).ipAddress == "198.51.100.7")
        // Two proxies, over two header lines: the inner one is trusted too, so reading goes on past it.
        #expect(proxies.client(behind: proxy, headers: Self.headers("X-Forwarded-For", "198.51.100.7", "10.1.1.1")).ipAddress == "198.51.100.7")
        // A peer that is not a proxy is the client, whatever it writes.
        let stranger = Self.address("198.51.100.50")
        #expect(proxies.client(behind: stranger, headers: Self.headers("X-Forwarded-For", "203.0.113.9")).ipAddress == "198.51.100.50")
        // Garbage in the header stops the walk at the last trusted hop rather than trusting it.
        #expect(proxies.client(behind: proxy, headers: Self.headers("X-Forwarded-For", "not-an-address")).ipAddress == "127.0.0.1")
        #expect(proxies.client(behind: proxy, headers: HTTPFields()).ipAddress == "127.0.0.1")
        // The other header is not read: a proxy that sets X-Forwarded-For passes a client's Forwarded through.
        #expect(proxies.client(behind: proxy, headers: Self.headers("Forwarded", "for=203.0.113.9")).ipAddress == "127.0.0.1")
        // No trusted proxies (the default): every peer is its own client.
        #expect(TrustedProxies().client(behind: proxy, headers: Self.headers("X-Forwarded-For", "203.0.113.9")).ipAddress == "127.0.0.1")
    }

    @Test("RFC 7239 Forwarded: quoted, bracketed and ported values, and obfuscated identifiers")
    func forwarded() throws {
        let proxies = TrustedProxies(addresses: [try #require(IPNetwork("127.0.0.1"))], header: .forwarded)
        let proxy = Self.address("127.0.0.1")
        let header = Self.headers("Forwarded", #"for="[2001:db8:cafe::17]:4711";proto=https, for=198.51.100.7;by=127.0.0.1"#)
        #expect(TrustedProxies.Header.forwarded.hops(in: header) == ["2001:db8:cafe::17", "198.51.100.7"])
        #expect(proxies.client(behind: proxy, headers: header).ipAddress == "198.51.100.7")
        #expect(proxies.client(behind: proxy, headers: Self.headers("Forwarded", #"For="198.51.100.8:8080""#)).ipAddress == "198.51.100.8")
        #expect(proxies.client(behind: proxy, headers: Self.headers("Forwarded", "for=_hidden")).ipAddress == "127.0.0.1")
        // A hop that names no client (`by=` only) stops the reading there too, rather than being skipped.
        let noFor = Self.headers("Forwarded", "for=198.51.100.9, by=127.0.0.1")
        #expect(TrustedProxies.Header.forwarded.hops(in: noFor) == ["198.51.100.9", ""])
        #expect(proxies.client(behind: proxy, headers: noFor).ipAddress == "127.0.0.1")
        // Counted per IPv6 /64, like a direct IPv6 client.
        let client = ClientAddress(proxies.client(behind: proxy, headers: Self.headers("Forwarded", #"for="[2001:db8:cafe:1:2::17]""#)))
        #expect(client.subject == "v6:2001:db8:cafe:1::/64" && client.text == "2001:db8:cafe:1:2::17")
    }

    @Test("the configuration file and the environment name proxies; trusting everyone is refused")
    func configuration() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("gatehouse.json")
        try Data(#"{"trusted_proxies": {"addresses": ["10.0.0.0/8", "::1"], "header": "forwarded"}}"#.utf8).write(to: file)
        let loaded = try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init())
        #expect(loaded.trustedProxies.addresses.map(\.description) == ["10.0.0.0/8", "::1"] && loaded.trustedProxies.header == .forwarded)
        let fromEnvironment = try ConfigurationLoader(environment: ["GATEHOUSE_TRUSTED_PROXIES": "127.0.0.1, 192.168.0.0/16"]).load(
            configFile: nil, overrides: .init())
        #expect(fromEnvironment.trustedProxies.addresses.map(\.description) == ["127.0.0.1", "192.168.0.0/16"])

        try Data(#"{"trusted_proxies": {"addresses": ["10.0.0.300"]}}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init()) }
        try Data(#"{"trusted_proxies": {"addresses": ["0.0.0.0/0"]}}"#.utf8).write(to: file)
        let everyone = #expect(throws: ConfigurationError.self) { try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init()) }
        #expect(everyone?.description.contains("every client") == true && everyone?.key == "trusted_proxies.addresses")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(environment: ["GATEHOUSE_TRUSTED_PROXIES": "proxy.internal"]).load(configFile: nil, overrides: .init())
        }
    }
}
