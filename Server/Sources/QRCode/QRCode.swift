/// A QR code symbol (ISO/IEC 18004, model 2): a square of dark and light modules.
///
/// Text is encoded in byte mode as UTF-8, in the smallest version that fits at the requested
/// error-correction level, with the mask that scores best under the standard's penalty rules.
///
/// ```swift
/// let code = try QRCode(encoding: "otpauth://totp/Gatehouse:ada?secret=…")
/// let svg = code.svg()
/// ```
public struct QRCode: Sendable, Equatable {
    /// The version, 1...40; the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    /// The level the symbol was made at.
    public let errorCorrection: ErrorCorrectionLevel
    /// Modules per side.
    public let size: Int
    /// Row-major: `modules[y * size + x]` is true for a dark module.
    public private(set) var modules: [Bool]
    /// Modules that belong to finder, timing, alignment, format and version patterns.
    private var reserved: [Bool]

    /// Encodes `text` as UTF-8 bytes.
    public init(encoding text: String, errorCorrection: ErrorCorrectionLevel = .medium) throws {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes raw bytes in byte mode.
    /// - Throws: ``QRCodeError`` when the bytes do not fit in version 40 at `errorCorrection`.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrectionLevel = .medium) throws {
        guard let version = (1...40).first(where: { Self.dataBitCount(bytes.count, version: $0) <= Self.dataCodewordCount($0, errorCorrection) * 8 })
        else { throw QRCodeError.tooLong(bytes: bytes.count, level: errorCorrection) }
        self.version = version
        self.errorCorrection = errorCorrection
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        reserved = Array(repeating: false, count: size * size)
        drawFunctionPatterns()
        place(codewords: Self.interleaved(Self.dataCodewords(bytes, version: version, level: errorCorrection), version: version, level: errorCorrection))
        chooseMask()
    }

    /// Whether the module in column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }

    // MARK: - Capacity

    private static func characterCountBits(_ version: Int) -> Int { version <= 9 ? 8 : 16 }

    private static func dataBitCount(_ byteCount: Int, version: Int) -> Int {
        guard byteCount < 1 << characterCountBits(version) else { return .max }
        return 4 + characterCountBits(version) + 8 * byteCount
    }

    /// All codewords in a symbol of `version`: the area left after the function patterns, in bytes.
    static func rawCodewordCount(_ version: Int) -> Int {
        var modules = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            modules -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { modules -= 36 }
        }
        return modules / 8
    }

    static func dataCodewordCount(_ version: Int, _ level: ErrorCorrectionLevel) -> Int {
        rawCodewordCount(version) - level.codewordsPerBlock(version: version) * level.blockCount(version: version)
    }

    // MARK: - Codewords

    /// Mode, count, data, terminator and padding, as data codewords.
    private static func dataCodewords(_ bytes: [UInt8], version: Int, level: ErrorCorrectionLevel) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: characterCountBits(version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = dataCodewordCount(version, level) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits data into blocks, adds each block's error correction, and interleaves the result.
    private static func interleaved(_ data: [UInt8], version: Int, level: ErrorCorrectionLevel) -> [UInt8] {
        let blockCount = level.blockCount(version: version)
        let eccLength = level.codewordsPerBlock(version: version)
        let raw = rawCodewordCount(version)
        let shortBlocks = blockCount - raw % blockCount
        let shortLength = raw / blockCount - eccLength
        let coder = ReedSolomon(degree: eccLength)
        var blocks: [(data: ArraySlice<UInt8>, ecc: [UInt8])] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength + (index < shortBlocks ? 0 : 1)
            let slice = data[start..<start + length]
            blocks.append((slice, coder.remainder(of: slice)))
            start += length
        }
        var result: [UInt8] = []
        result.reserveCapacity(raw)
        for position in 0...shortLength {
            for block in blocks where position < block.data.count {
                result.append(block.data[block.data.startIndex + position])
            }
        }
        for position in 0..<eccLength {
            for block in blocks { result.append(block.ecc[position]) }
        }
        return result
    }

    // MARK: - Function patterns

    private mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        reserved[y * size + x] = true
    }

    private mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(6, index, index % 2 == 0)
            setFunction(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            drawFinder(centerX: x, centerY: y)
        }
        let centers = alignmentCenters
        for (row, y) in centers.enumerated() {
            for (column, x) in centers.enumerated() {
                let last = centers.count - 1
                let overlapsFinder = (row == 0 && column == 0) || (row == 0 && column == last) || (row == last && column == 0)
                if !overlapsFinder { drawAlignment(centerX: x, centerY: y) }
            }
        }
        drawFormatBits(mask: 0)
        drawVersionBits()
    }

    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx, y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(x, y, ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignment(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 { setFunction(centerX + dx, centerY + dy, max(abs(dx), abs(dy)) != 1) }
        }
    }

    /// Row and column coordinates of alignment pattern centres (ISO/IEC 18004, annex E).
    private var alignmentCenters: [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centers = [6]
        for index in 0..<(count - 1) { centers.insert(size - 7 - index * step, at: 1) }
        return centers
    }

    private mutating func drawFormatBits(mask: Int) {
        let data = errorCorrection.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(8, index, bit(index)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for index in 9..<15 { setFunction(14 - index, 8, bit(index)) }
        for index in 0..<8 { setFunction(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { setFunction(8, size - 15 + index, bit(index)) }
        setFunction(8, size - 8, true)
    }

    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3, b = index / 3
            setFunction(a, b, dark)
            setFunction(b, a, dark)
        }
    }

    // MARK: - Data placement and masking

    /// Places codewords in the zigzag order: two-module columns from the right, alternating up and down.
    private mutating func place(codewords: [UInt8]) {
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !reserved[y * size + x] {
                    if bitIndex < codewords.count * 8 {
                        modules[y * size + x] = (codewords[bitIndex >> 3] >> (7 - (bitIndex & 7))) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    private static func maskApplies(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    private mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] && Self.maskApplies(mask, x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }

    private mutating func chooseMask() {
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            var candidate = self
            candidate.apply(mask: mask)
            candidate.drawFormatBits(mask: mask)
            let penalty = candidate.penalty
            if penalty < best.penalty { best = (mask, penalty) }
        }
        apply(mask: best.mask)
        drawFormatBits(mask: best.mask)
    }

    /// The standard's penalty score: long runs, 2×2 blocks, finder-like sequences, and dark/light imbalance.
    var penalty: Int {
        var score = 0
        let finderLike: [Bool] = [true, false, true, true, true, false, true]
        for line in 0..<size {
            for horizontal in [true, false] {
                let lineModules = (0..<size).map { horizontal ? self[$0, line] : self[line, $0] }
                var runLength = 1
                for index in 1...size {
                    if index < size, lineModules[index] == lineModules[index - 1] {
                        runLength += 1
                    } else {
                        if runLength >= 5 { score += runLength - 2 }
                        runLength = 1
                    }
                }
                // 1:1:3:1:1 with four light modules on one side (the quiet zone counts as light).
                for start in 0...(size - 7) {
                    guard (start..<start + 7).allSatisfy({ lineModules[$0] == finderLike[$0 - start] }) else { continue }
                    let lightBefore = (start - 4..<start).allSatisfy { $0 < 0 || !lineModules[$0] }
                    let lightAfter = (start + 7..<start + 11).allSatisfy { $0 >= size || !lineModules[$0] }
                    if lightBefore { score += 40 }
                    if lightAfter { score += 40 }
                }
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let color = self[x, y]
                if color == self[x + 1, y], color == self[x, y + 1], color == self[x + 1, y + 1] { score += 3 }
            }
        }
        let dark = modules.lazy.filter { $0 }.count
        let total = size * size
        let deviation = (abs(dark * 20 - total * 10) + total - 1) / total - 1
        score += max(0, deviation) * 10
        return score
    }
}

/// Bits appended most significant first, read out as bytes.
private struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> (count % 8) }
            count += 1
        }
    }
}
