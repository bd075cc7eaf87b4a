extension QRCode {
    /// The symbol as a binary portable graymap (PGM, `P5`): `scale` pixels per module and a quiet zone of
    /// `quietZone` modules. Image tools and barcode readers such as zbar read it directly.
    public func portableGraymap(scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        var pixels = Array("P5\n\(side) \(side)\n255\n".utf8)
        pixels.reserveCapacity(pixels.count + side * side)
        for pixelY in 0..<side {
            for pixelX in 0..<side {
                let x = pixelX / scale - quietZone, y = pixelY / scale - quietZone
                let dark = (0..<size).contains(x) && (0..<size).contains(y) && self[x, y]
                pixels.append(dark ? 0 : 255)
            }
        }
        return pixels
    }
}
