extension QRCode {
    /// The symbol as lines of text for a terminal, two module rows per line using Unicode half blocks.
    ///
    /// With `colored` (the default) the lines set black on bright white with ANSI escapes, so the code
    /// reads the same on dark and light terminal themes. Without it, dark modules are drawn as blocks
    /// and light ones as spaces, which suits a light background.
    public func terminalText(quietZone: Int = 2, colored: Bool = true) -> String {
        let side = size + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let column = x - quietZone, row = y - quietZone
            guard (0..<size).contains(column), (0..<size).contains(row) else { return false }
            return self[column, row]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: side, by: 2) {
            var line = colored ? "\u{1B}[30;107m" : ""
            for x in 0..<side {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + (colored ? "\u{1B}[0m" : ""))
        }
        return lines.joined(separator: "\n")
    }
}
