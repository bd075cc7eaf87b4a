import GatehouseDomain
import GatehouseProtocol
import Hummingbird

/// The pushed authorization request endpoint (RFC 9126): a client posts its authorization request's parameters
/// directly, authenticated as at the token endpoint, and gets a one-time `request_uri` to send the browser with. The
/// parameters never pass through the browser, where they could be read or changed, and errors come back to the client
/// as JSON rather than to a redirect URI.
struct PushedAuthorizationController: Sendable {
    let authenticator: ClientAuthenticator
    let resources: ResourceStore
    let pushedRequests: PushedAuthorizationRequestStore
    let dpopProofs: DPoPProofCheck
    /// Reads a signed request (`request`, RFC 9101 §5), and refuses unsigned ones from clients that must sign.
    let requestObjects: RequestObjectVerifier
    /// Seconds a pushed request may wait for the browser (`token_lifetimes.pushed_request`).
    let lifetime: Int64

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/par") { request, _ in try await push(request) }
    }

    func push(_ request: Request) async throws -> Response {
        let form = try await FormParameters.body(of: request)
        let client = try await authenticator.authenticate(request, parameters: form, path: "/par")
        if form["request_uri"] != nil {
            throw OAuthError.invalidRequest("request_uri cannot be pushed; push the authorization request's parameters themselves.")
        }
        // A signed request's parameters are the request object's; the form's others only authenticated the client.
        let parameters = try await requestObjects.parameters(of: form, client: client)
        if parameters["request_uri"] != nil {
            throw OAuthError.invalidRequest("request_uri cannot be pushed; push the authorization request's parameters themselves.")
        }
        guard let redirectURI = parameters["redirect_uri"] else { throw OAuthError.invalidRequest("redirect_uri is missing.") }
        guard client.allowsRedirect(to: redirectURI) else {
            throw OAuthError.invalidRequest("The redirect URI is not registered for \(client.id).")
        }
        var validated: AuthorizationRequest
        let checked = try await AuthorizationController.resources(namedIn: parameters, client: client, from: resources).flatMap { named in
            AuthorizationController.validate(parameters, client: client, redirectURI: redirectURI, resources: named)
        }
        switch checked {
        case .success(let request): validated = request
        case .failure(let error): throw error
        }
        // RFC 9449 §10.1: a DPoP proof at this endpoint binds the code to its key, as dpop_jkt does; both must agree.
        let proofs = dpopProofs
        let proof: DPoPProof?
        do {
            proof = try await proofs.proof(of: request, path: "/par")
        } catch {
            throw proofs.tokenEndpointError(error)
        }
        if let proof {
            if let named = validated.dpopJKT, named != proof.thumbprint {
                throw OAuthError(.invalidDPoPProof, "The DPoP proof's key is not the one dpop_jkt names.")
            }
            validated.dpopJKT = proof.thumbprint
        }
        let reference = try await pushedRequests.push(validated, lifetime: lifetime)
        return JSONResponse.make(PushedAuthorizationResponse(requestURI: reference, expiresIn: Int(lifetime)), status: .created)
    }
}
