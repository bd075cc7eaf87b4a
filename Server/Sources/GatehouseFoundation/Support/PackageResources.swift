import Foundation

/// Files the server reads at run time (`Sources/GatehouseServer/Resources`), which SwiftPM puts in the folder
/// `GatehouseServer_GatehouseServer.resources` beside the built `gatehouse` binary. Looked up here rather than through
/// `Bundle.module`, which stops the process when the folder is missing; this says what to do instead.
package enum PackageResources {
    package static let folderName = "GatehouseServer_GatehouseServer.resources"

    /// Every resource the server reads by name: the common-password list, the flow API's OpenAPI document, the hosted
    /// pages' stylesheet and scripts. The templates are read as a folder (``texts(under:withExtension:)``).
    package static let names = [
        "common-passwords.txt", "openapi.json", "admin-openapi.json", "account-openapi.json", "assets/gatehouse.css", "assets/app-login.js",
        "assets/passkey.js",
    ]

    /// Every resource, read once, at first use.
    private static let loaded = Result { () throws(Missing) -> [String: String] in
        var texts: [String: String] = [:]
        for name in names { texts[name] = try text(name) }
        return texts
    }

    /// Stops a server that could not read its resources, saying which and where they were looked for: without the
    /// password list it would accept the most common passwords, without the stylesheet its pages would be bare.
    package static func requireAll() throws(Missing) {
        _ = try loaded.get()
    }

    /// The text of `name`, one of ``names``; empty if the resources were not found (``requireAll()`` ran at start).
    package static func contents(_ name: String) -> String {
        (try? loaded.get())?[name] ?? ""
    }

    /// Every file under the resource folder `folder` whose name ends in `.extension`, by its path inside `folder` without
    /// the extension (`messages/sign_in_code`), read from disk now.
    package static func texts(under folder: String, withExtension fileExtension: String) throws(Missing) -> [String: String] {
        let folders = candidates.map { $0.appendingPathComponent(folder) }
        guard let root = folders.first(where: { FileManager.default.fileExists(atPath: $0.path) }),
            let paths = FileManager.default.subpaths(atPath: root.path)
        else { throw Missing(name: folder, searched: folders.map(\.path)) }
        var texts: [String: String] = [:]
        for path in paths.sorted() where path.hasSuffix("." + fileExtension) {
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else { continue }
            texts[String(path.dropLast(fileExtension.count + 1))] = String(decoding: data, as: UTF8.self)
        }
        return texts
    }

    /// A resource could not be read.
    package struct Missing: Error, CustomStringConvertible {
        package let name: String
        package let searched: [String]

        package var description: String {
            "The resource \(name) was not found in \(searched.joined(separator: " or ")). Keep the folder \(PackageResources.folderName) "
                + "beside the gatehouse binary when you copy or install it."
        }
    }

    /// The text of the resource `name`, read from disk now.
    private static func text(_ name: String) throws(Missing) -> String {
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
