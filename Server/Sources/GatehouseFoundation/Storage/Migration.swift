/// One numbered schema change. Migrations are only ever appended, never edited once released.
package struct Migration: Sendable {
    package let version: Int
    package let name: String
    package let statements: [String]
}
