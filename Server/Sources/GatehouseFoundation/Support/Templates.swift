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

    /// Stops a server whose templates cannot be read or do not parse, naming the file.
    package static func requireAll() throws(Unreadable) {
        _ = try parsed.get()
    }

    /// Whether there is a template `name`.
    package static func exists(_ name: String) -> Bool {
        (try? parsed.get())?.getTemplate(named: name) != nil
    }

    /// `name` rendered with `values`; empty if there is no such template (``requireAll()`` ran at start).
    package static func render(_ name: String, _ values: [String: Any]) -> String {
        (try? parsed.get())?.render(values, withTemplate: name) ?? ""
    }

    /// Templates that cannot be read or do not parse.
    package struct Unreadable: Error, CustomStringConvertible {
        package let name: String
        package let reason: String
        package var description: String { "The template \(name) could not be read: \(reason)." }
    }
}
