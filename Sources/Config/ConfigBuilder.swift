import Crypto
import JSON

/// The configuration under construction: each layer is applied on top of the previous one and
/// every problem is collected, so one run reports them all.
struct ConfigBuilder {
    /// The scalar settings so far (types are kept apart as drafts until `finish`).
    var config = PresigndConfig()
    /// Upload types so far, in order.
    var types: [UploadTypeDraft] = []
    /// Where a key's current value came from, when that was a variable or a flag (for messages).
    var origins: [String: String] = [:]
    /// Everything found wrong so far.
    var problems: [ConfigProblem] = []
    /// The key paths a layer set (the loader clears it after the built-in defaults), so that a
    /// provider preset fills in only what the operator left alone.
    var assigned: Set<String> = []

    /// Records a problem.
    mutating func report(_ keyPath: String, _ message: String) {
        problems.append(ConfigProblem(keyPath: keyPath, message: message))
    }

    /// Sets `key` from text given by a variable or a flag called `origin`, typed by the key's kind.
    ///
    /// Integers are strict decimal (`-?(0|[1-9][0-9]*)`), Booleans `true`, `false`, `1` or `0`.
    mutating func set(_ key: ConfigKey, text: String, origin: String) {
        switch key.kind {
        case .int(let property):
            guard let value = Self.strictInt(text) else {
                return report(key.path, "must be an integer (got \(ConfigText.quoted(text)) from \(origin))")
            }
            config[keyPath: property] = value
        case .bool(let property):
            switch text {
            case "true", "1": config[keyPath: property] = true
            case "false", "0": config[keyPath: property] = false
            default:
                return report(
                    key.path, "must be true, false, 1 or 0 (got \(ConfigText.quoted(text)) from \(origin))")
            }
        case .string(let property):
            config[keyPath: property] = text
        case .optionalString(let property):
            config[keyPath: property] = text.isEmpty ? nil : text
        case .choice(let choice):
            guard choice.set(&config, text) else {
                return report(key.path, "\(choice.refusal) (got \(ConfigText.quoted(text)) from \(origin))")
            }
        case .secret(let property):
            config[keyPath: property] = Secret(text)
        case .strings(let property):
            config[keyPath: property] = Self.list(text, separators: [","])
        case .apiKeys(let property):
            var entries: [APIKeyConfig] = []
            for (index, entry) in Self.list(text, separators: [",", "\n", "\r\n"]).enumerated() {
                guard let colon = entry.firstIndex(of: ":") else {
                    return report(key.path, "entry \(index + 1) must be id:sha256hex[:admin] (from \(origin))")
                }
                // `id:sha256hex` or `id:sha256hex:scope+scope` (a digest holds no colon).
                let rest = entry[entry.index(after: colon)...]
                let scopeColon = rest.firstIndex(of: ":")
                let digest = String(rest[..<(scopeColon ?? rest.endIndex)])
                let scopes =
                    scopeColon.map { rest[rest.index(after: $0)...].split(separator: "+").map(String.init) } ?? []
                entries.append(APIKeyConfig(id: String(entry[..<colon]), sha256: digest, scopes: scopes))
            }
            config[keyPath: property] = entries
        case .recordsLocation(let property):
            do {
                config[keyPath: property] = try RecordsLocation(parsing: text)
            } catch {
                for problem in error.problems { report(key.path, problem.message + " (from \(origin))") }
                return
            }
        }
        origins[key.path] = origin
        assigned.insert(key.path)
    }

    /// The non-empty items of `text` split at any of `separators`, each without surrounding spaces,
    /// tabs or carriage returns (`"RS256, ES256"` → `["RS256", "ES256"]`; `""` → `[]`).
    static func list(_ text: String, separators: Set<Character>) -> [String] {
        text.split(whereSeparator: { separators.contains($0) }).compactMap { item in
            let trimmed = item.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            let end = trimmed.lastIndex { $0 != " " && $0 != "\t" && $0 != "\r" }
            return end.map { String(trimmed[...$0]) }
        }
    }

    /// A decimal integer with no sign other than a leading `-`, no spaces and no leading zeros.
    static func strictInt(_ text: String) -> Int? {
        let utf8 = Array(text.utf8)
        let digits = utf8.first == UInt8(ascii: "-") ? utf8.dropFirst() : utf8[...]
        guard let first = digits.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if first == UInt8(ascii: "0") && digits.count > 1 { return nil }
        return Int(text)
    }

    /// Applies the command-line overrides (`--host`, `--port`).
    mutating func apply(_ flags: CommandLineFlags) {
        if let host = flags.host, let key = ConfigKey.find(section: "server", name: "host") {
            set(key, text: host, origin: "--host")
        }
        if let port = flags.port, let key = ConfigKey.find(section: "server", name: "port") {
            set(key, text: port, origin: "--port")
        }
    }

    /// Turns the drafts into types and returns the configuration (problems stay in `problems`).
    mutating func finish() -> PresigndConfig {
        var result = config
        result.types = []
        for draft in types {
            switch draft.resolve(defaultExpiresSeconds: config.presign.expiresSeconds) {
            case .success(let type): result.types.append(type)
            case .failure(let error): problems += error.problems
            }
        }
        return result
    }
}
