/// Comparison of secrets whose running time does not depend on where they differ.
public enum ConstantTime {
    /// Whether two strings are equal, compared in time that depends only on their lengths (for secrets).
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }

    /// Whether two byte arrays are equal, compared in time that depends only on their lengths (for secrets).
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        // The length of a digest or token is not secret; the content is.
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }
}
