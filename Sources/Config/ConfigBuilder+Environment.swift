import Crypto
import JSON

extension ConfigBuilder {
    /// The variable that names the config file when `--config` is absent.
    static let configFileVariable = "PRESIGN_CONFIG"
    /// The variable holding upload types as a JSON object, merged as a config file's `types` is.
    static let typesVariable = "PRESIGN_TYPES"

    /// Applies `PRESIGN_<SECTION>_<KEY>` variables, `*_FILE` variables, and the `AWS_*` fallbacks;
    /// reports unknown variables in the configuration's namespaces.
    mutating func applyEnvironment(_ environment: [String: String], readFile: (String) throws -> [UInt8]) {
        for key in ConfigKey.all {
            let variable = key.environmentVariable
            let fileVariable = variable + "_FILE"
            let direct = environment[variable]
            let filePath = key.allowsFileVariable ? environment[fileVariable] : nil
            if direct != nil && filePath != nil {
                report(key.path, "set only one of \(variable) and \(fileVariable)")
            } else if let direct {
                if key.isSecret && direct.isEmpty {
                    report(key.path, "\(variable) is set but empty")
                } else {
                    set(key, text: direct, origin: variable)
                }
            } else if let filePath {
                if let text = readValueFile(filePath, variable: fileVariable, keyPath: key.path, readFile: readFile) {
                    set(key, text: text, origin: fileVariable)
                }
            }
        }
        applyAWSFallback(environment)
        if let types = environment[Self.typesVariable] { applyTypesVariable(types) }
        reportUnknownVariables(environment)
    }

    /// `PRESIGN_TYPES`: a JSON object of upload types, applied after the config file's exactly as a
    /// file's `types` section (a known type updated field by field, a new one added, `null` removes),
    /// so that a type can be added without a config file (a container's environment).
    mutating func applyTypesVariable(_ text: String) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(text.utf8), limits: Self.documentLimits)
        } catch {
            return report(Self.typesVariable, "not valid JSON: \(error.description)")
        }
        guard let members = value.objectValue else {
            return report(
                Self.typesVariable,
                "must hold a JSON object of upload types, as the config file's types (got \(value.typeName))")
        }
        applyTypes(members)
    }

    /// The contents of a `*_FILE` file as text, one trailing newline (`\n` or `\r\n`) removed.
    ///
    /// Problems name the variable and the path, never the contents.
    mutating func readValueFile(
        _ path: String, variable: String, keyPath: String, readFile: (String) throws -> [UInt8]
    ) -> String? {
        var bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            report(keyPath, "\(variable): cannot read \(ConfigText.quoted(path)): \(error)")
            return nil
        }
        if bytes.last == 0x0A {
            bytes.removeLast()
            if bytes.last == 0x0D { bytes.removeLast() }
        }
        guard !bytes.isEmpty else {
            report(keyPath, "\(variable): the file \(ConfigText.quoted(path)) is empty")
            return nil
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            report(keyPath, "\(variable): the file \(ConfigText.quoted(path)) is not UTF-8 text")
            return nil
        }
        return text
    }

    /// Reads `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, as one set, only
    /// when no layer gave any S3 credential, so that a key id and a secret never come from two places.
    /// Empty `AWS_*` values count as unset, as the AWS tools do.
    mutating func applyAWSFallback(_ environment: [String: String]) {
        guard config.s3.accessKeyId.isEmpty, config.s3.secretAccessKey == nil, config.s3.sessionToken == nil else {
            return
        }
        for key in ConfigKey.all {
            guard let fallback = key.fallbackVariable, let value = environment[fallback], !value.isEmpty else {
                continue
            }
            set(key, text: value, origin: fallback)
        }
    }

    /// `PRESIGN_` names that are not configuration and that presignd leaves alone: the test suite's
    /// own variables (`PRESIGN_TEST_*`, `PRESIGN_SKIP_*`), which a shell running the tests may pass on.
    static let foreignVariablePrefixes = ["PRESIGN_TEST_", "PRESIGN_SKIP_"]

    /// Every `PRESIGN_…` variable that matches no key (nor its `_FILE` form, nor `PRESIGN_CONFIG`) is a
    /// problem, with the names it most likely meant, so that a typo (`PRESIGN_BUCKET`) is not
    /// silently ignored. Only `foreignVariablePrefixes` are left alone.
    mutating func reportUnknownVariables(_ environment: [String: String]) {
        var known: Set<String> = [Self.configFileVariable, Self.typesVariable]
        for key in ConfigKey.all {
            known.insert(key.environmentVariable)
            if key.allowsFileVariable { known.insert(key.environmentVariable + "_FILE") }
        }
        for name in environment.keys.sorted() where name.hasPrefix("PRESIGN_") && !known.contains(name) {
            guard !Self.foreignVariablePrefixes.contains(where: { name.hasPrefix($0) }) else { continue }
            if name.hasPrefix("PRESIGN_TYPES_") {
                report(
                    name,
                    "upload types cannot be set field by field from the environment; give PRESIGN_TYPES a JSON "
                        + "object of types (as the config file's types) or set them in the config file")
                continue
            }
            var message: String
            if name.hasSuffix("_FILE"), known.contains(String(name.dropLast(5))) {
                let readable = ConfigKey.all.filter(\.allowsFileVariable).map(\.path).joined(separator: ", ")
                message = "unknown variable (*_FILE is read only for \(readable))"
            } else {
                message = "unknown variable (no configuration key has this name"
                let suggestions = VariableSuggestion.candidates(
                    for: name, among: known.sorted(), sections: ConfigKey.sections.map(ConfigKey.upperSnake))
                if !suggestions.isEmpty {
                    message += "; did you mean " + suggestions.joined(separator: " or ") + "?"
                }
                message += ")"
            }
            report(name, message)
        }
    }
}
