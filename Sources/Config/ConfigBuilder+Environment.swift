import Crypto

extension ConfigBuilder {
    /// The variable that names the config file when `--config` is absent.
    static let configFileVariable = "PRESIGN_CONFIG"

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
        reportUnknownVariables(environment)
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

    /// Every `PRESIGN_<SECTION>_…` variable that matches no key is a problem (a typo would
    /// otherwise be ignored silently). Other `PRESIGN_…` names are left alone.
    mutating func reportUnknownVariables(_ environment: [String: String]) {
        var known: Set<String> = [Self.configFileVariable]
        for key in ConfigKey.all {
            known.insert(key.environmentVariable)
            if key.allowsFileVariable { known.insert(key.environmentVariable + "_FILE") }
        }
        let prefixes = ConfigKey.sections.map { "PRESIGN_" + ConfigKey.upperSnake($0) + "_" }
        for name in environment.keys.sorted() where !known.contains(name) {
            guard let prefix = prefixes.first(where: { name.hasPrefix($0) }) else { continue }
            if prefix == "PRESIGN_TYPES_" {
                report(name, "upload types cannot be set from the environment; set them in the config file")
            } else if name.hasSuffix("_FILE") {
                let readable = ConfigKey.all.filter(\.allowsFileVariable).map(\.path).joined(separator: ", ")
                report(name, "unknown variable (*_FILE is read only for \(readable))")
            } else {
                report(name, "unknown variable (no configuration key has this name)")
            }
        }
    }
}
