import Foundation

extension SchemaMigrations {
    /// The tables a database whose schema is at `version` holds: those the migrations up to it create and have not
    /// dropped since. A check of a database (or a backup) expects every one of them.
    package static func expectedTables(at version: Int) -> Set<String> {
        var tables: Set<String> = []
        for migration in all.sorted(by: { $0.version < $1.version }) where migration.version <= version {
            for statement in migration.statements {
                let words = statement.split(whereSeparator: \.isWhitespace).prefix(3).map { $0.uppercased() }
                guard words.count == 3, words[1] == "TABLE" else { continue }
                let name = String(words[2].prefix { $0.isLetter || $0.isNumber || $0 == "_" }).lowercased()
                if words[0] == "CREATE" { tables.insert(name) } else if words[0] == "DROP" { tables.remove(name) }
            }
        }
        return tables
    }
}
