import Crypto

/// One scalar setting: its key path, its type and where in `PresigndConfig` it lives.
///
/// The registry (`ConfigKey.all`) drives the config file reader, the environment reader,
/// `redactedJSON()` and the documentation test, so a new key is added in one place.
struct ConfigKey {
    /// The type of a setting and the property it sets.
    enum Kind {
        /// An integer.
        case int(WritableKeyPath<PresigndConfig, Int>)
        /// A Boolean.
        case bool(WritableKeyPath<PresigndConfig, Bool>)
        /// A string.
        case string(WritableKeyPath<PresigndConfig, String>)
        /// A string whose empty value means unset (nil); shown as `""` when unset.
        case optionalString(WritableKeyPath<PresigndConfig, String?>)
        /// One of a fixed set of names, held as an enum.
        case choice(ConfigChoice)
        /// A secret: environment only, never printed.
        case secret(WritableKeyPath<PresigndConfig, Secret?>)
        /// A list of strings (a JSON array; in the environment, comma-separated).
        case strings(WritableKeyPath<PresigndConfig, [String]>)
        /// API key entries (a JSON array of `{"id", "sha256"}`; in the environment, `id:sha256hex`
        /// separated by commas or newlines).
        case apiKeys(WritableKeyPath<PresigndConfig, [APIKeyConfig]>)
        /// Where the records live (`records.url`), parsed by `RecordsLocation(parsing:)`; printed redacted,
        /// and a wrong value is shown only by its type.
        case recordsLocation(WritableKeyPath<PresigndConfig, RecordsLocation>)
    }

    /// The section, e.g. `server`.
    let section: String
    /// The key within the section, e.g. `maxConnections`.
    let name: String
    /// Its type and property.
    let kind: Kind
    /// Whether `<variable>_FILE` may name a file holding the value.
    var allowsFileVariable = false
    /// A variable read when neither `<variable>` nor `<variable>_FILE` is set and the value is still unset.
    var fallbackVariable: String? = nil

    /// `section.name`.
    var path: String { "\(section).\(name)" }

    /// `PRESIGN_<SECTION>_<KEY>`, the key in upper snake case.
    var environmentVariable: String {
        "PRESIGN_" + Self.upperSnake(section) + "_" + Self.upperSnake(name)
    }

    /// Whether the value is a secret.
    var isSecret: Bool {
        if case .secret = kind { return true }
        return false
    }

    /// `maxConnections` → `MAX_CONNECTIONS`, `hs256Secret` → `HS256_SECRET`: an underscore before
    /// each upper-case letter that follows a lower-case letter or a digit.
    static func upperSnake(_ camel: String) -> String {
        var result = ""
        var previousIsLowerOrDigit = false
        for character in camel {
            if character.isUppercase && previousIsLowerOrDigit { result.append("_") }
            result += character.uppercased()
            previousIsLowerOrDigit = character.isLowercase || character.isNumber
        }
        return result
    }

    /// The sections of the config file, in file order (`types` is not a scalar section).
    static let sections = [
        "server", "tls", "log", "auth", "limits", "s3", "presign", "types", "records", "explain", "compat", "uppy",
        "multipart", "events", "webhooks", "scan", "cors",
    ]
}
