import Foundation
import Testing

@Suite("Composition")
struct CompositionTests {
    /// Every Swift file of the server library, by its path under `Server/Sources/GatehouseServer/`.
    static func serverSources() throws -> [(path: String, text: String)] {
        let base = RepositoryLayoutTests.root.appendingPathComponent("Server/Sources/GatehouseServer")
        let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { url in
            (String(url.path.dropFirst(base.path.count + 1)), try String(contentsOf: url, encoding: .utf8))
        }
    }

    /// Parts receive what they use in their initializers: the identity server is where they are put together, and only
    /// there. A part that held the server could reach every store, and its initializer would no longer say what it touches.
    @Test("only the application names the identity server")
    func onlyTheApplicationNamesTheServer() throws {
        let sources = try Self.serverSources()
        #expect(sources.count > 50)
        let naming = sources.filter { file in
            !file.path.hasPrefix("Application/") && file.text.range(of: #"\bIdentityServer\b"#, options: .regularExpression) != nil
        }
        #expect(naming.map(\.path) == [])
    }
}
