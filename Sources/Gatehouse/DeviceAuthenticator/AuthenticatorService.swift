import Foundation
import GatehouseProtocol

/// A service the device can register with and approve sign-ins for: its URL and checked description.
public struct AuthenticatorService: Sendable, Equatable {
    /// The service URL (what the QR code names before `#`).
    public let url: URL
    /// What the server says about itself: its name, the keys to trust and the app versions it serves.
    public let description: AuthenticatorServiceDescription

    /// The name to show the person.
    public var name: String { description.serviceName }

    /// Checks that `description` has what the SDK needs: the protocol it speaks, a PIN length it supports, and endpoints on `url`'s host.
    init(url: URL, description: AuthenticatorServiceDescription) throws(DeviceAuthenticatorError) {
        guard description.protocolVersion == PINProtocol.version else {
            throw .invalidServiceDescription("it speaks \(description.protocolVersion), not \(PINProtocol.version)")
        }
        guard PINProtocol.pinLengths.contains(description.pinLength) else {
            throw .invalidServiceDescription("pin_length \(description.pinLength) is not 4 to 6")
        }
        guard !description.serviceName.isEmpty else { throw .invalidServiceDescription("service_name is empty") }
        let endpoints = [description.endpoints.registration, description.endpoints.identity, description.endpoints.sessions]
        for endpoint in endpoints {
            // The app only ever sends its secrets back to the host it scanned.
            guard let endpointURL = URL(string: endpoint), endpointURL.host == url.host, endpointURL.scheme == url.scheme, endpointURL.port == url.port else {
                throw .invalidServiceDescription("the endpoint \(endpoint) is not on \(url.host ?? "the service's host")")
            }
        }
        self.url = url
        self.description = description
    }
}
