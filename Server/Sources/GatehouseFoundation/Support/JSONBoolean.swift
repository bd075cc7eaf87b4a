import Foundation

/// Booleans among the values `JSONSerialization` reads: `true` and `false` come as `NSNumber` like numbers do, and a
/// number converts to `Bool` too.
package enum JSONBoolean {
    /// Whether `value` was written `true` or `false`, not as a number.
    package static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }
}
