import Config
import Crypto

/// An S3 key pair (AWS's documented example), so that configurations sign with static keys as most
/// tests expect: `load` adds it unless told otherwise.
let exampleCredentials = [
    "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
]

/// The built-in defaults with `exampleCredentials`: what `load()` gives without arguments.
func defaultsWithExampleCredentials() -> PresigndConfig {
    var config = PresigndConfig.defaults
    config.s3.accessKeyId = "AKIAIOSFODNN7EXAMPLE"
    config.s3.secretAccessKey = Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    return config
}

/// Loads with an in-memory file system: `files` maps paths to contents; other paths fail to open.
///
/// `credentials` are added to `environment` (whose values win). Tests of the credential rules pass
/// `credentials: [:]` so that only what they give is seen.
func load(
    _ arguments: [String] = [], environment: [String: String] = [:], files: [String: String] = [:],
    credentials: [String: String] = exampleCredentials
) -> Result<CommandLineAction, ConfigError> {
    let environment = environment.merging(credentials) { given, _ in given }
    return ConfigLoader.load(arguments: arguments, environment: environment) { path in
        guard let text = files[path] else {
            throw FileReadError.cannotOpen(path: path, reason: "No such file or directory")
        }
        return Array(text.utf8)
    }
}

/// The configuration of a `.run` result, or nil.
func runConfig(_ result: Result<CommandLineAction, ConfigError>) -> PresigndConfig? {
    if case .success(.run(let config)) = result { return config }
    return nil
}

/// The problems of a failed result (empty when it succeeded).
func problems(_ result: Result<CommandLineAction, ConfigError>) -> [ConfigProblem] {
    if case .failure(let error) = result { return error.problems }
    return []
}

/// The key paths of a failed result's problems.
func keyPaths(_ result: Result<CommandLineAction, ConfigError>) -> [String] {
    problems(result).map(\.keyPath)
}

/// The repository root, found from this file's path (Tests/ConfigTests/ConfigTestSupport.swift).
func repositoryPath(_ relative: String, filePath: String = #filePath) -> String {
    var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/") + "/" + relative
}
