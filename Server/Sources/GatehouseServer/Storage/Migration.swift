/// One numbered schema change. Migrations are only ever appended, never edited once released.
struct Migration: Sendable {
    let version: Int
    let name: String
    let statements: [String]
}
