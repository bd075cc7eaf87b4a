import Foundation
import GatehouseServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin commands against a running server's admin API (`--server URL`) instead of its database: the same
/// commands, for operators who are not on the server's machine. The token comes from `GATEHOUSE_ADMIN_TOKEN`
/// (an admin token from `gatehouse admin-tokens create`, or a client-credentials token with `gatehouse:admin`).
struct RemoteAdmin: Sendable {
    let base: URL
    let token: String

    init(server: String) throws {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw CommandError("--server must be the server's URL, such as https://id.example.com, not \(server).")
        }
        guard let token = ProcessInfo.processInfo.environment["GATEHOUSE_ADMIN_TOKEN"], !token.isEmpty else {
            throw CommandError("Set GATEHOUSE_ADMIN_TOKEN to an admin token (gatehouse admin-tokens create NAME) to use --server.")
        }
        base = url
        self.token = token
    }

    /// Sends a request and decodes the JSON answer as `T`; a problem-details answer becomes its `detail` as the error.
    @discardableResult
    func send<T: Decodable>(
        _ method: String, _ path: String, body: (any Encodable)? = nil, headers: [String: String] = [:], as type: T.Type = Empty.self
    ) async throws -> T {
        var request = URLRequest(url: URL(string: base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        request.timeoutInterval = 30
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CommandError("\(base.absoluteString) could not be reached: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let detail = (try? JSONDecoder().decode(Problem.self, from: data))?.detail ?? "HTTP \(status)"
            throw CommandError("The server refused: \(detail)")
        }
        if T.self == Empty.self { return Empty() as! T }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw CommandError("The server's answer could not be read (HTTP \(status)); is \(base.absoluteString) a Gatehouse server of this version?")
        }
    }

    /// No body expected.
    struct Empty: Decodable {}

    /// RFC 9457 problem details: the part said to the operator.
    struct Problem: Decodable {
        var detail: String
    }

    /// A page of a list.
    struct Page<Item: Decodable>: Decodable {
        var items: [Item]
        var next_cursor: String?
    }

    /// `text` as one path segment or query value.
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// The user named `username`, found by the API's search.
    func user(named username: String) async throws -> AdminUser {
        let name = username.lowercased()
        let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        let found: Page<AdminUser> = try await send("GET", "/admin/v1/users?q=\(query)&limit=500", as: Page<AdminUser>.self)
        guard let user = found.items.first(where: { $0.username == name }) else { throw CommandError("There is no user named \(name).") }
        return user
    }

    /// Every user, page after page.
    func users() async throws -> [AdminUser] {
        var all: [AdminUser] = []
        var cursor: String?
        repeat {
            let after = cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" } ?? ""
            let page: Page<AdminUser> = try await send("GET", "/admin/v1/users?limit=500\(after)", as: Page<AdminUser>.self)
            all += page.items
            cursor = page.next_cursor
        } while cursor != nil
        return all
    }
}

extension StoreOptions {
    /// The remote server's admin API when `--server` is given; `nil` to work on the database.
    func remote() throws -> RemoteAdmin? {
        try server.map(RemoteAdmin.init(server:))
    }
}
