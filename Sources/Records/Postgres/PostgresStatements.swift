/// How the PostgreSQL store sends its fixed statements (`records.postgresStatements`).
public enum PostgresStatements: String, Sendable, CaseIterable {
    /// Named prepared statements, prepared once per connection (parsed once): the default.
    case named
    /// Unnamed statements, parsed with every call: for a transaction-mode pooler that cannot keep a
    /// server connection's prepared statements for one client (PgBouncer before 1.21 in
    /// `pool_mode = transaction`).
    case unnamed
}
