import Foundation

/// Email addresses as SMTP needs them.
package enum EmailAddress {
    /// The address inside `Name <address>`, or `text` itself when it is a bare address; `nil` when neither is valid.
    package static func bare(_ text: String) -> String? {
        var address = text.trimmingCharacters(in: .whitespaces)
        if address.hasSuffix(">"), let open = address.lastIndex(of: "<") {
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        return (try? AccountInputValidation.validateEmail(address)) == nil ? nil : address
    }
}
