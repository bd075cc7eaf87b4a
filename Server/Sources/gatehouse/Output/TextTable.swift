import Foundation
import GatehouseFoundation

/// A plain text table with aligned columns, for terminal output. Every cell is printed escaped
/// (``Swift/String/escapedForTerminal``): a value that came from outside — a name typed at sign-in, a legacy
/// username — cannot forge table lines or send escape sequences to the operator's terminal.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []

    func render() -> String {
        let cells = ([headers] + rows).map { $0.map(\.escapedForTerminal) }
        let widths = headers.indices.map { column in
            cells.map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }
        return cells.map(line).joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }

    /// The text with what a terminal would act on written out instead: control characters (line breaks, escape,
    /// C1 controls) and the bidirectional overrides that reorder what is shown, as `\n`, `\t`, `\r` or `\u{1B}`.
    var escapedForTerminal: String {
        guard unicodeScalars.contains(where: \.changesDisplay) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            guard scalar.changesDisplay else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }
}
