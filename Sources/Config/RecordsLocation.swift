/// Where the records live: `records.url` parsed once, when the configuration is loaded.
///
/// `description` and reflection (`dump`) show the location with any password redacted.
public enum RecordsLocation: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The embedded SQLite store in the file at `path` (`sqlite:<path>`, also `sqlite:///<absolute path>`).
    case sqlite(path: String)
    /// A PostgreSQL server (`postgres://…` or `postgresql://…`).
    case postgres(PostgresURL)

    /// The built-in default, `sqlite:data/presignd.sqlite3`.
    public static let defaultLocation = RecordsLocation.sqlite(path: "data/presignd.sqlite3")

    /// Parses `url`; a URL that names no usable store throws one `records.url` problem, whose message
    /// never holds a password (nor a value without a scheme, which may be a secret pasted by mistake).
    public init(parsing url: String) throws(ConfigError) {
        if url.hasPrefix("sqlite:") {
            var path = String(url.dropFirst("sqlite:".count))
            if path.hasPrefix("///") { path.removeFirst(2) }
            guard !path.isEmpty, !path.hasSuffix("/") else {
                throw Self.problem("sqlite: URL without a file path; use sqlite:/path/to/file.db")
            }
            self = .sqlite(path: path)
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(try PostgresURL(url))
        } else {
            // Show the scheme only when there is one: a URL without a colon may be a secret pasted by mistake.
            let scheme = url.contains(":") ? String(url.prefix { $0 != ":" }) : ""
            let plausible =
                !scheme.isEmpty && scheme.count <= 16 && scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" }
            let shown = url.contains("://") && plausible ? " (got \(ConfigText.quoted(PostgresURL.redact(url))))" : ""
            throw Self.problem(
                "unknown store URL scheme '\(plausible ? scheme : "?")'; use sqlite:<path> or "
                    + "postgres://user@host:port/db\(shown)")
        }
    }

    /// The location in `records.url` form, its password redacted: safe to print or log.
    public var redacted: String {
        switch self {
        case .sqlite(let path): return "sqlite:" + path
        case .postgres(let url): return url.redacted
        }
    }

    /// `redacted`.
    public var description: String { redacted }

    /// A mirror showing only `redacted`, so `dump` never shows the password.
    public var customMirror: Mirror { Mirror(self, children: ["url": redacted], displayStyle: .enum) }

    /// The one `records.url` problem carrying `message`.
    static func problem(_ message: String) -> ConfigError {
        ConfigError(problems: [ConfigProblem(keyPath: "records.url", message: message)])
    }
}
