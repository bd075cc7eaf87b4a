import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The configured transport as the SDK uses it for the provider: each request asks for the app's languages
/// (`Accept-Language`, so the provider's messages in flow nodes arrive in them) and passes the app's
/// ``RequestHook``.
struct ProviderTransport: HTTPTransport {
    let base: any HTTPTransport
    let acceptLanguage: String?
    let hook: (any RequestHook)?

    init(base: any HTTPTransport, languages: [String], hook: (any RequestHook)?) {
        self.base = base
        acceptLanguage = Self.acceptLanguage(languages)
        self.hook = hook
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var request = request
        if let acceptLanguage, request.value(forHTTPHeaderField: "Accept-Language") == nil {
            request.setValue(acceptLanguage, forHTTPHeaderField: "Accept-Language")
        }
        guard let hook else { return try await base.send(request) }
        await hook.willSend(&request)
        do {
            let (body, response) = try await base.send(request)
            await hook.didReceive(response, body: body, for: request)
            return (body, response)
        } catch {
            await hook.didFail(error, for: request)
            throw error
        }
    }

    /// `languages` in preference order as an `Accept-Language` value (RFC 9110 §12.5.4): the first without a
    /// weight, the next ones at 0.9, 0.8, … (at most ten); `nil` for none.
    static func acceptLanguage(_ languages: [String]) -> String? {
        // BCP 47 tags are letters, digits and hyphens; anything else could break the header.
        let tags = languages.filter { tag in
            !tag.isEmpty && tag.unicodeScalars.allSatisfy { $0 == "-" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
        }
        guard !tags.isEmpty else { return nil }
        return tags.prefix(10).enumerated().map { index, tag in index == 0 ? tag : "\(tag);q=0.\(10 - index)" }.joined(separator: ", ")
    }
}
