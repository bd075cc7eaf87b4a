import Foundation
import GatehouseResourceServer
import HTTPTypes
import Hummingbird

/// Hummingbird middleware that lets a request through only with a valid Gatehouse access token carrying
/// `requiredScopes`, and puts its grant in the context (``GatehouseRequestContext/accessGrant``). A refusal is answered
/// with its status, a `WWW-Authenticate` challenge naming the API's protected-resource metadata, and a JSON body.
public struct GatehouseAuthentication<Context: GatehouseRequestContext>: RouterMiddleware {
    private let server: ResourceServer
    private let requiredScopes: [String]

    /// Checks tokens with `server`, requiring `requiredScopes` of every request that passes.
    public init(_ server: ResourceServer, requiring requiredScopes: [String] = []) {
        self.server = server
        self.requiredScopes = requiredScopes
    }

    /// Checks the request's token; passes the request on with its grant in the context, or answers the refusal.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let url = server.requestURL(path: request.uri.path, query: request.uri.query) ?? URL(string: request.uri.description)!
        let incoming = ResourceRequest(
            method: request.method.rawValue, url: url, authorization: request.headers[.authorization], dpop: request.headers[.dpop])
        var context = context
        do {
            context.accessGrant = try await server.authorize(incoming, requiring: requiredScopes)
        } catch {
            var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
            headers[.wwwAuthenticate] = server.challenge(for: error)
            return Response(status: .init(code: error.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// The header of a DPoP proof (RFC 9449 §4.1).
    fileprivate static let dpop = HTTPField.Name("DPoP")!
}

extension RouterMethods {
    /// Serves `server`'s protected-resource metadata (RFC 9728) at its well-known path, without authentication.
    @discardableResult
    public func addProtectedResourceMetadata(for server: ResourceServer) -> Self {
        let document = ByteBuffer(bytes: (try? JSONEncoder().encode(server.metadata)) ?? Data("{}".utf8))
        get(RouterPath(server.metadataPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"], body: .init(byteBuffer: document))
        }
        return self
    }
}
