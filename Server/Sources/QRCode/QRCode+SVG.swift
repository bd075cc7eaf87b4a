extension QRCode {
    /// The symbol as a standalone SVG image: one path for the dark modules on a white square, with a
    /// quiet zone of `quietZone` modules (the standard asks for 4). It scales without blurring.
    public func svg(quietZone: Int = 4, title: String? = nil) -> String {
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else { x += 1; continue }
                // One rectangle per horizontal run keeps the path short.
                var run = 1
                while x + run < size, self[x + run, y] { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let label = title.map { "<title>\(Self.escaped($0))</title>" } ?? ""
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges" role="img">\
            \(label)<rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
