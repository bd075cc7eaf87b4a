import Foundation
import Mustache

/// The hosted pages' and messages' templates (`Resources/templates`, Mustache), read from the resources and parsed
/// once. The template engine HTML-escapes every value it inserts into a page, so no page builds markup from strings by
/// hand; the only values inserted as they are are markup a template rendered (a page into the layout) or the QR
/// encoder drew. The words of emails, texts and calls are catalog messages (``MessageCatalog``), not templates.
package enum Templates {
    /// The folder of the resources the templates are in; a template is named by its path inside it without
    /// `.mustache` (`flow`, `admin-user`), and includes another as a partial by that name (`{{>flow-field}}`).
    package static let folder = "templates"

    private static let parsed = Result { () throws(Unreadable) -> MustacheLibrary in
        let texts: [String: String]
        do {
            texts = try PackageResources.texts(under: folder, withExtension: "mustache")
        } catch {
            throw Unreadable(name: folder, reason: "\(error)")
        }
        guard !texts.isEmpty else { throw Unreadable(name: folder, reason: "the folder holds no templates") }
        var library = MustacheLibrary()
        for (name, text) in texts {
            // A file's last line break is not part of the markup (a partial may sit inside a tag).
            var text = text
            if text.hasSuffix("\n") { text.removeLast() }
            do {
                try library.register(text, named: name)
            } catch {
                throw Unreadable(name: "\(folder)/\(name).mustache", reason: "\(error)")
            }
        }
        return library
    }

    /// The shipped templates with an operator's laid over them (`templates_dir`), once a server set them; process-wide,
    /// as the configuration is.
    private static let overridden = Overridden()

    private final class Overridden: @unchecked Sendable {
        private let lock = NSLock()
        private var library: MustacheLibrary?

        var current: MustacheLibrary? { lock.withLock { library } }
        func set(_ library: MustacheLibrary?) { lock.withLock { self.library = library } }
    }

    /// Stops a server whose templates cannot be read or do not parse, naming the file; with `directory`, its
    /// `<name>.mustache` files replace the shipped templates of those names (an operator's own markup). A file that
    /// names no shipped template, or does not parse, is refused with its path (and line and column).
    package static func requireAll(overriding directory: String? = nil) throws(Unreadable) {
        var library = try parsed.get()
        guard let directory else {
            overridden.set(nil)
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }.sorted()
        } catch {
            throw Unreadable(name: directory, reason: "the folder cannot be read (\(error.localizedDescription))")
        }
        for file in names {
            let name = String(file.dropLast(".mustache".count))
            let path = (directory as NSString).appendingPathComponent(file)
            guard library.getTemplate(named: name) != nil else {
                throw Unreadable(name: path, reason: "no page template is called \(name); a file here replaces a shipped template of the same name")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(name: path, reason: "the file cannot be read") }
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            do {
                try library.register(text, named: name)
            } catch let error as MustacheTemplate.ParserError {
                throw Unreadable(
                    name: "\(path):\(error.context.lineNumber):\(error.context.columnNumber)",
                    reason: "\(error.error) at “\(error.context.line.trimmingCharacters(in: .whitespaces))”")
            } catch {
                throw Unreadable(name: path, reason: "\(error)")
            }
        }
        overridden.set(library)
    }

    private static var library: MustacheLibrary? { overridden.current ?? (try? parsed.get()) }

    /// Whether there is a template `name`.
    package static func exists(_ name: String) -> Bool {
        library?.getTemplate(named: name) != nil
    }

    /// `name` rendered with `values`; empty if there is no such template (``requireAll(overriding:)`` ran at start).
    package static func render(_ name: String, _ values: [String: Any]) -> String {
        library?.render(values, withTemplate: name) ?? ""
    }

    /// Templates that cannot be read or do not parse.
    package struct Unreadable: Error, CustomStringConvertible {
        package let name: String
        package let reason: String
        package var description: String { "The template \(name) could not be read: \(reason)." }
    }
}
