import Foundation

/// Files the server reads at run time (`Sources/GatehouseServer/Resources`), which SwiftPM puts in the folder
/// `GatehouseServer_GatehouseServer.resources` beside the built `gatehouse` binary. Looked up here rather than through
/// `Bundle.module`, which stops the process when the folder is missing; this says what to do instead.
enum PackageResources {
    static let folderName = "GatehouseServer_GatehouseServer.resources"

    /// A resource could not be read.
    struct Missing: Error, CustomStringConvertible {
        let name: String
        let searched: [String]

        var description: String {
            "The resource \(name) was not found in \(searched.joined(separator: " or ")). Keep the folder \(PackageResources.folderName) "
                + "beside the gatehouse binary when you copy or install it."
        }
    }

    /// The text of the resource `name`.
    static func text(_ name: String) throws(Missing) -> String {
        let folders = candidates
        for folder in folders {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                return String(decoding: data, as: UTF8.self)
            }
        }
        throw Missing(name: name, searched: folders.map(\.path))
    }

    /// Beside the running executable (the `gatehouse` binary, or the test runner in the same build folder), and on
    /// macOS inside a test bundle's parent folder.
    private static var candidates: [URL] {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        let folders = [
            Bundle.main.bundleURL.appendingPathComponent(folderName), executable.appendingPathComponent(folderName),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(folderName),
        ]
        return folders.reduce(into: [URL]()) { unique, folder in if !unique.contains(folder) { unique.append(folder) } }
    }
}
