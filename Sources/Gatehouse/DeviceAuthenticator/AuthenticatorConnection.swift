import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests to a service's authenticator endpoints: names the app, adds the device secret, and turns every
/// answer the service can give into a ``DeviceAuthenticatorError``.
struct AuthenticatorConnection: Sendable {
    let app: AuthenticatorApp
    let transport: any HTTPTransport
    let timeout: TimeInterval

    /// Sends a request and decodes a 2xx answer as `T`.
    func send<T: Decodable>(
        _ method: String, _ url: String, body: (some Encodable)? = Optional<String>.none, secret: String? = nil,
        as type: T.Type
    ) async throws(DeviceAuthenticatorError) -> T {
        let (data, response) = try await raw(method, url, body: body, secret: secret)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .service(status: response.statusCode, error: "unreadable_response", description: "the answer is not a \(T.self)")
        }
    }

    /// Sends a request and returns a 2xx answer's body; other statuses become typed errors.
    @discardableResult
    func raw(
        _ method: String, _ url: String, body: (some Encodable)? = Optional<String>.none,
        secret: String? = nil
    ) async throws(DeviceAuthenticatorError) -> (Data, HTTPURLResponse) {
        guard let endpoint = URL(string: url) else { throw .invalidServiceDescription("\(url) is not a URL") }
        var request = URLRequest(url: endpoint, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(app.headerValue, forHTTPHeaderField: PINProtocol.appHeader)
        if let secret { request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONEncoder().encode(body)
        }
        let answer: (Data, HTTPURLResponse)
        do {
            answer = try await transport.send(request)
        } catch {
            throw .network(ProviderRequest.cause(of: error))
        }
        let (data, response) = answer
        guard !(200..<300).contains(response.statusCode) else { return answer }
        let problem = try? JSONDecoder().decode(OAuthErrorResponse.self, from: data)
        throw Self.error(status: response.statusCode, problem)
    }

    static func error(status: Int, _ problem: OAuthErrorResponse?) -> DeviceAuthenticatorError {
        switch (status, problem?.error) {
        case (406, _): return .appNotAllowed
        case (412, _): return .updateRequired(minimumVersion: problem?.errorDescription.flatMap(Self.version(in:)))
        case (_, "wrong_pin"): return .wrongPIN(attemptsRemaining: problem?.attemptsRemaining ?? 0)
        case (_, "identity_blocked"): return .identityBlocked
        case (_, "session_expired"): return .sessionExpired
        case (_, "wrong_number"): return .wrongNumber
        case (_, "invalid_code"): return .invalidCode(attemptsRemaining: problem?.attemptsRemaining ?? 0)
        case (_, "expired_code"): return .codeExpired
        case (_, "registration_expired"): return .registrationExpired
        case (_, "invalid_device"): return .unknownIdentity
        case (_, "invalid_state"): return .wrongState(problem?.errorDescription ?? StringCatalog.text("device.state.not_fitting", languages: ["en"]))
        case (_, "account_locked"): return .accountLocked
        default: return .service(status: status, error: problem?.error ?? "http_\(status)", description: problem?.errorDescription)
        }
    }

    /// The first dotted version in the 412 description ("needs version 2.0.0 of the app").
    private static func version(in text: String) -> String? {
        text.split(separator: " ").map { $0.trimmingCharacters(in: .punctuationCharacters) }.first { AppVersion($0) != nil && $0.contains(".") }
    }
}
