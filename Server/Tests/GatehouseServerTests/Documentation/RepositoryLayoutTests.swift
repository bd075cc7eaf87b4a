import Foundation
import Testing

/// The maps a newcomer reads first — "Repository layout" in the contributing guide (`docs/contributing.md`) and the
/// server's DocC overview — name every target and every folder there is, and no folder that is gone.
@Suite("Repository layout")
struct RepositoryLayoutTests {
    /// The repository's root: this file is `Server/Tests/GatehouseServerTests/Documentation/…`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The folders directly in `path` (relative to the root), leaving out DocC catalogs.
    static func folders(in path: String) throws -> Set<String> {
        let url = root.appendingPathComponent(path)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return Set(
            names.filter { name in
                var isFolder: ObjCBool = false
                return !name.hasSuffix(".docc") && FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder)
                    && isFolder.boolValue
            })
    }

    /// The contributing guide's layout block: each top-level path with the folders listed under it.
    static func guideLayout() throws -> [String: Set<String>] {
        let guide = try String(contentsOf: root.appendingPathComponent("docs/contributing.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## Repository layout").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        var layout: [String: Set<String>] = [:]
        var current: String?
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
            let word = line.split(separator: " ").first.map(String.init) ?? ""
            if !line.hasPrefix(" ") {
                current = word
                layout[word, default: []] = layout[word, default: []]
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), word.hasSuffix("/"), let current {
                layout[current, default: []].insert(String(word.dropLast()))
            }
        }
        return layout
    }

    @Test("the contributing guide lists every target, and every folder of the libraries and the tool")
    func guideListsEveryFolder() throws {
        let layout = try Self.guideLayout()
        for parent in ["Sources", "Server/Sources"] {
            for target in try Self.folders(in: parent) {
                #expect(layout["\(parent)/\(target)/"] != nil, "the contributing guide names \(parent)/\(target)/")
            }
        }
        for library in [
            "Sources/GatehouseProtocol", "Sources/Gatehouse", "Server/Sources/GatehouseFoundation", "Server/Sources/GatehouseDomain",
            "Server/Sources/GatehouseEngines", "Server/Sources/GatehouseServer",
            "Server/Sources/gatehouse",
        ] {
            #expect(layout["\(library)/"] == (try Self.folders(in: library)), "the contributing guide lists the folders of \(library)/ as they are")
        }
    }

    @Test(
        "each server library's DocC overview names every folder of the library",
        arguments: ["GatehouseFoundation", "GatehouseDomain", "GatehouseEngines", "GatehouseServer"])
    func doccListsEveryFolder(library: String) throws {
        let overview = try String(
            contentsOf: Self.root.appendingPathComponent("Server/Sources/\(library)/\(library).docc/\(library).md"), encoding: .utf8)
        let named = Set(
            overview.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("- `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
                let name = line[line.index(line.startIndex, offsetBy: 3)..<end]
                return name.hasSuffix("/") ? String(name.dropLast()) : nil
            })
        #expect(named == (try Self.folders(in: "Server/Sources/\(library)")))
    }
}
