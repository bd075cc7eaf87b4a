import AsyncHTTPClient
import GatehouseFoundation
import NIOConcurrencyHelpers
import NIOSSL

/// The HTTP client pushes go through: the shared one, or one that also trusts an operator's certificate authority,
/// made once per file for the life of the process (as the shared one is).
enum PushHTTP {
    private static let clients = NIOLockedValueBox<[String: HTTPClient]>([:])

    static func client(caFile: String?) throws -> HTTPClient {
        guard let caFile else { return OutboundHTTP.client }
        if let made = clients.withLockedValue({ $0[caFile] }) { return made }
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
        } catch {
            throw ConfigurationError("The certificate authority file \(caFile) cannot be read as PEM: \(error)")
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.tracing.tracer = nil
        return clients.withLockedValue { clients in
            if let made = clients[caFile] { return made }
            let made = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[caFile] = made
            return made
        }
    }
}
