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
/// path that cannot be read counts as absent. A path set in the environment that does not exist is
/// skipped as absent too (botocore's and the AWS CLI's shared-file providers do the same), with a
/// start-up warning (`startupWarnings()`); one that exists must be readable.
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

    /// A warning for each of `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` that names a file
    /// that does not exist (it is skipped, as if the variable were unset).
    public func startupWarnings() -> [String] {
        ["AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"].compactMap { (variable: String) -> String? in
            guard let path = namedPath(variable) else { return nil }
            do throws(CredentialsError) {
                _ = try context.read(path, for: name)
                return nil
            } catch {
                guard Self.isMissing(error) else { return nil }
                return "\(variable) names \(path), which does not exist: skipped, as the AWS CLI and SDKs skip it"
            }
        }
    }

    /// True when `error` says the file does not exist.
    static func isMissing(_ error: CredentialsError) -> Bool {
        if case .file(_, _, let reason) = error { return reason == CredentialsFileReader.missingFileReason }
        return false
    }

    /// The path `variable` names, a leading `~/` expanded with `HOME`; nil when it is unset.
    private func namedPath(_ variable: String) -> String? {
        guard let given = context.variable(variable) else { return nil }
        if given.hasPrefix("~/"), let home = context.variable("HOME") { return home + given.dropFirst() }
        return given
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
        if let given = namedPath(variable) {
            explicit = true
            path = given
        } else {
            guard let home else { return nil }
            explicit = false
            path = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.aws/" + defaultName
        }
        let bytes: [UInt8]
        do {
            bytes = try context.read(path, for: name)
        } catch {
            if explicit && !Self.isMissing(error) { throw error }
            return nil
        }
        return LoadedFile(path: path, parsed: try ProfileFile.parse(bytes, kind: kind, source: path, provider: name))
    }
}
