import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Lets an app take part in the SDK's requests to the provider without replacing the transport: add headers
/// (a tracing header, an app version), and watch the requests go and the answers come back (metrics, logs).
///
/// Set it as ``GatehouseConfiguration/requestHook``. Every method has a default that does nothing, so an app
/// implements only what it needs. Requests carry passwords, codes and tokens: a hook that logs should leave
/// bodies and the `Authorization` header out.
public protocol RequestHook: Sendable {
    /// Called before each request leaves, after the SDK set its own headers; may add or change headers.
    func willSend(_ request: inout URLRequest) async

    /// Called with each answer from the provider, whatever its status.
    func didReceive(_ response: HTTPURLResponse, body: Data, for request: URLRequest) async

    /// Called when a request got no answer (no network, a timeout, a refused connection).
    func didFail(_ error: any Error, for request: URLRequest) async
}

extension RequestHook {
    /// Leaves the request as the SDK made it.
    public func willSend(_ request: inout URLRequest) async {}

    /// Ignores the answer.
    public func didReceive(_ response: HTTPURLResponse, body: Data, for request: URLRequest) async {}

    /// Ignores the failure.
    public func didFail(_ error: any Error, for request: URLRequest) async {}
}
