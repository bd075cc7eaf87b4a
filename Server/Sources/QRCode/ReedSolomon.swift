/// Reed–Solomon error correction over GF(2⁸) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1.
struct ReedSolomon {
    /// Coefficients of the generator polynomial (without the leading 1), highest degree first.
    private let generator: [UInt8]

    init(degree: Int) {
        // The product of (x − αⁱ) for i in 0..<degree.
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = Self.multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = Self.multiply(root, 0x02)
        }
        generator = coefficients
    }

    /// The error-correction codewords for `data`: the remainder of data·xⁿ divided by the generator.
    func remainder(of data: some Sequence<UInt8>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= Self.multiply(generator[index], factor) }
        }
        return result
    }

    /// Multiplication in GF(2⁸) modulo 0x11D.
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var product = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            product ^= ((Int(y) >> bit) & 1) * Int(x)
        }
        return UInt8(product)
    }
}
