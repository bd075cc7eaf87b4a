import GatehouseFoundation
import NIOCore
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

@Suite("Clients known by their metadata document")
struct ClientMetadataDocumentTests {
    @Test("only public internet addresses may be fetched: never loopback, private, link-local, cloud metadata or documentation ranges")
    func publicAddresses() throws {
        for address in ["93.184.215.14", "2606:4700::6810:85e5", "8.8.8.8"] {
            #expect(PublicAddress.contains(try SocketAddress(ipAddress: address, port: 443)), "\(address)")
        }
        for address in [
            "127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::",
            "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "2001:db8::1",
            // IPv4 carried inside IPv6: IPv4-compatible, 6to4 (of 127.0.0.1 and 10.0.0.1), Teredo; and site-local.
            "::127.0.0.1", "::10.0.0.1", "2002:7f00:1::1", "2002:a00:1::", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fec0::1",
        ] {
            #expect(!PublicAddress.contains(try SocketAddress(ipAddress: address, port: 443)), "\(address)")
        }
    }

    @Test("loopback means localhost and literal loopback addresses, never a name that starts like one")
    func loopbackHosts() {
        for host in ["localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "0:0:0:0:0:0:0:1"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
        for host in [
            "127.attacker.example", "127.0.0.1.nip.io", "127.0.0.1.", "localhost.attacker.example", "127.1", "0177.0.0.1", "128.0.0.1", "[::2]",
            "::ffff:10.0.0.1", "example.com", "", "127.0.0.1%lo",
        ] {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
    }

    @Test("a document is cached as Cache-Control says: max-age, nothing for no-store or no-cache, unknown without either")
    func cacheControl() {
        #expect(GuardedFetch.maxAge("public, max-age=300") == 300)
        #expect(GuardedFetch.maxAge("max-age=300, no-store") == 0)
        #expect(GuardedFetch.maxAge("No-Cache") == 0)
        #expect(GuardedFetch.maxAge("max-age=-5") == 0)
        #expect(GuardedFetch.maxAge("public") == nil && GuardedFetch.maxAge("") == nil)
    }
}
