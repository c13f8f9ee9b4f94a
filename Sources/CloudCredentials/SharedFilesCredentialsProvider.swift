import Crypto
import SigV4

/// Static keys of a profile in the AWS shared files: `AWS_SHARED_CREDENTIALS_FILE` (default
/// `$HOME/.aws/credentials`) and `AWS_CONFIG_FILE` (default `$HOME/.aws/config`), profile
/// `AWS_PROFILE` (else `AWS_DEFAULT_PROFILE`, else `default`).
///
/// Only `aws_access_key_id`, `aws_secret_access_key` and `aws_session_token` are used; the
/// credentials file wins over the config file key by key. A profile that asks for another way
/// (`role_arn`, `credential_process`, `sso_*`, `web_identity_token_file`) is an error rather than
/// a silent fall-through to another identity. Both files are read again on every fetch. A default
/// path that cannot be read counts as absent; a path set in the environment must be readable.
public struct SharedFilesCredentialsProvider: CredentialsProvider {
    /// `shared files`.
    public let name = "shared files"
    /// The environment and the file reader.
    private let context: CredentialsContext

    /// A provider reading its variables from `context`.
    public init(context: CredentialsContext) {
        self.context = context
    }

    /// Profile keys that mean "credentials come from elsewhere", which this provider does not do.
    static let unsupportedKeys = [
        "role_arn", "source_profile", "credential_source", "credential_process", "sso_session", "sso_start_url",
        "web_identity_token_file",
    ]

    /// The profile's keys.
    public func fetch() throws(CredentialsError) -> ProvidedCredentials {
        let explicitProfile = context.variable("AWS_PROFILE") ?? context.variable("AWS_DEFAULT_PROFILE")
        let profile = explicitProfile ?? "default"
        let credentialsFile = try load(
            variable: "AWS_SHARED_CREDENTIALS_FILE", defaultName: "credentials", kind: .credentials)
        let configFile = try load(variable: "AWS_CONFIG_FILE", defaultName: "config", kind: .config)
        let files = [credentialsFile, configFile].compactMap { $0 }
        guard !files.isEmpty else {
            throw .notConfigured(provider: name, reason: "no shared credentials or config file")
        }
        let paths = files.map(\.path).joined(separator: " and ")
        var properties: [String: String] = [:]
        var found: [String] = []
        // The config file first, so that the credentials file's keys override it.
        for file in [configFile, credentialsFile] {
            guard let file, let section = file.parsed.profiles[profile] else { continue }
            properties.merge(section) { _, new in new }
            found.append("\(file.path) [\(profile)]")
        }
        guard !found.isEmpty else {
            if explicitProfile != nil {
                throw .invalidConfiguration(provider: name, reason: "profile \(profile) is not in \(paths)")
            }
            throw .notConfigured(provider: name, reason: "no [default] profile in \(paths)")
        }
        let accessKeyId = properties["aws_access_key_id"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = properties["aws_secret_access_key"].flatMap { $0.isEmpty ? nil : $0 }
        let token = properties["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        guard accessKeyId != nil || secret != nil || token != nil else {
            if let other = Self.unsupportedKeys.first(where: { properties[$0] != nil }) {
                throw .invalidConfiguration(
                    provider: name,
                    reason: "profile \(profile) uses \(other), which presignd does not support: give it "
                        + "aws_access_key_id and aws_secret_access_key, or use the environment's providers")
            }
            throw .notConfigured(provider: name, reason: "profile \(profile) has no aws_access_key_id")
        }
        guard let accessKeyId, let secret else {
            let missing = accessKeyId == nil ? "aws_access_key_id" : "aws_secret_access_key"
            throw .invalidConfiguration(provider: name, reason: "profile \(profile) lacks \(missing)")
        }
        guard accessKeyId.utf8.count <= 128,
            accessKeyId.utf8.allSatisfy({ CredentialFields.isVisibleASCII($0) && $0 != UInt8(ascii: "/") }),
            secret.utf8.allSatisfy(CredentialFields.isVisibleASCII),
            token?.utf8.allSatisfy(CredentialFields.isVisibleASCII) ?? true
        else {
            throw .invalidConfiguration(
                provider: name, reason: "profile \(profile) holds a key or token that is not visible ASCII")
        }
        let credentials = Credentials(
            accessKeyId: accessKeyId, secretAccessKey: Secret(secret), sessionToken: token.map { Secret($0) })
        return ProvidedCredentials(credentials: credentials, provider: name, origins: found)
    }

    /// One file: its path and profiles.
    private struct LoadedFile {
        /// Where it was read.
        var path: String
        /// Its profiles.
        var parsed: ProfileFile
    }

    /// The file named by `variable`, else `$HOME/.aws/<defaultName>`; nil when there is none.
    private func load(variable: String, defaultName: String, kind: ProfileFile.Kind) throws(CredentialsError)
        -> LoadedFile?
    {
        let home = context.variable("HOME")
        let path: String
        let explicit: Bool
        if let given = context.variable(variable) {
            explicit = true
            if given.hasPrefix("~/"), let home {
                path = home + given.dropFirst()
            } else {
                path = given
            }
        } else {
            guard let home else { return nil }
            explicit = false
            path = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.aws/" + defaultName
        }
        let bytes: [UInt8]
        do {
            bytes = try context.read(path, for: name)
        } catch {
            if explicit { throw error }
            return nil
        }
        return LoadedFile(path: path, parsed: try ProfileFile.parse(bytes, kind: kind, source: path, provider: name))
    }
}
