/// Turns a command line and an environment into what presignd should do.
///
/// Layers, each overriding the one before: the built-in defaults (`config/presignd.json`), the
/// config file named by `--config` or `PRESIGN_CONFIG` (any subset of keys), `PRESIGN_*`
/// variables, then `--host` / `--port`. Secrets come only from the environment or `*_FILE` files.
/// Every problem is collected and returned at once.
public enum ConfigLoader {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Parses `arguments` (without the program name) and builds the validated configuration.
    ///
    /// `--help` and `--version` win over everything else; otherwise any problem (a bad flag, an
    /// unreadable file, an unknown key, an invalid value) makes the result a `ConfigError` with all of them.
    public static func load(
        arguments: [String], environment: [String: String],
        readFile: (String) throws -> [UInt8] = ConfigLoader.readFile(atPath:)
    ) -> Result<CommandLineAction, ConfigError> {
        let flags = CommandLineFlags(arguments: arguments)
        if flags.help { return .success(.help(helpText)) }
        if flags.version { return .success(.version) }

        var builder = defaultsBuilder()
        builder.problems = flags.problems + builder.problems

        let configFile =
            flags.configPath.map { (path: $0, origin: "--config") }
            ?? environment[ConfigBuilder.configFileVariable].flatMap {
                $0.isEmpty ? nil : (path: $0, origin: ConfigBuilder.configFileVariable)
            }
        if let configFile {
            do {
                let bytes = try readFile(configFile.path)
                builder.applyDocument(bytes, name: configFile.path)
            } catch {
                builder.report(configFile.origin, "cannot read \(ConfigText.quoted(configFile.path)): \(error)")
            }
        }
        builder.applyEnvironment(environment, readFile: readFile)
        builder.apply(flags)
        builder.applyProviderPreset()
        let config = builder.finish()

        // The validator reads only while `validate` runs (to check that key and certificate files are readable).
        let validationProblems = withoutActuallyEscaping(readFile) { reader in
            var validator = ConfigValidator(
                config: config, origins: builder.origins, failedKeyPaths: Set(builder.problems.map(\.keyPath)),
                readFile: reader)
            validator.validate()
            return validator.problems
        }
        let problems = builder.problems + validationProblems
        guard problems.isEmpty else { return .failure(ConfigError(problems: problems)) }
        if flags.healthcheck {
            return .success(.healthcheck(config, addressFromFlags: flags.host != nil || flags.port != nil))
        }
        if let explain = flags.explain { return .success(.explain(config, explain)) }
        if let token = flags.token { return .success(.token(config, token)) }
        if flags.notificationsSetup { return .success(.notificationsSetup(config, pushEndpoint: flags.pushEndpoint)) }
        return .success(flags.checkConfig ? .checkConfig(config) : .run(config))
    }

    /// A builder holding layer 1, the built-in defaults (`config/presignd.json`), and nothing else.
    static func defaultsBuilder() -> ConfigBuilder { defaults }

    /// Layer 1, read once: the embedded document never changes, and each load starts from a copy.
    private static let defaults: ConfigBuilder = {
        var builder = ConfigBuilder()
        builder.types = []
        builder.applyDocument(DefaultConfiguration.bytes, name: "built-in defaults")
        builder.assigned = []
        return builder
    }()
}
