import Foundation
import GatehouseProtocol

extension IDTokenValidator {
    /// The validator for the app's client at the provider described by `metadata`.
    init(configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata) throws(GatehouseError) {
        guard let jwks = URL(string: metadata.jwksURI) else { throw .discovery(.malformedDocument("jwks_uri is not a URL")) }
        self.init(issuer: metadata.issuer, clientID: configuration.clientID, keys: RemoteKeySet(url: jwks, transport: configuration.providerTransport))
    }

    /// Validates `token`, reporting every failure as a ``GatehouseError``.
    func checked(_ token: String, nonce: String?, maxAge: Int? = nil) async throws(GatehouseError) -> IDTokenClaims {
        do {
            return try await validate(token, nonce: nonce, maxAge: maxAge)
        } catch let error as IDTokenValidationError {
            throw .invalidIDToken(error)
        } catch let error as GatehouseError {
            throw error
        } catch {
            throw ProviderRequest.failure(error)
        }
    }
}
