import Foundation
import GatehouseFoundation
import Hummingbird

/// The OpenAPI 3.1 description of the flow API (the resource `openapi.json`), served at `/openapi.json` with the
/// issuer as its server. The end-to-end tests validate real responses against it, so it cannot drift from what the
/// server sends; a unit test checks that it describes every flow kind.
enum FlowAPIDocument {
    static func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, issuer: String) {
        let document = Data(text(issuer: issuer).utf8)
        router.get("/openapi.json") { _, _ in JSONResponse.data(document, cacheable: true) }
    }

    /// The document with `issuer` as its server.
    static func text(issuer: String) -> String {
        PackageResources.contents("openapi.json").replacingOccurrences(of: "{{issuer}}", with: issuer)
    }
}
