import SigV4

/// The first link of the chain: the keys the Config layer already resolved (`PRESIGN_S3_*` and
/// their `_FILE` forms, else `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`).
///
/// It only hands them on, with the names of what supplied them for the start-up log.
public struct StaticCredentialsProvider: CredentialsProvider {
    /// `static`.
    public let name = "static"
    /// The resolved keys, nil when the configuration gave none.
    public let credentials: Credentials?
    /// What supplied them (variable names, `config file`).
    public let origins: [String]

    /// A provider of `credentials` (nil: not configured), supplied by `origins`.
    public init(credentials: Credentials?, origins: [String]) {
        self.credentials = credentials
        self.origins = origins
    }

    /// The keys, or `.notConfigured` without them.
    public func fetch() throws(CredentialsError) -> ProvidedCredentials {
        guard let credentials else {
            throw .notConfigured(
                provider: name, reason: "no PRESIGN_S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID keys in the configuration")
        }
        return ProvidedCredentials(credentials: credentials, provider: name, origins: origins)
    }

    /// The names that supplied the static keys, by Config's rules (docs/operations.md, Secrets): for
    /// each of the access key id, secret key and session token, `PRESIGN_S3_X` or `PRESIGN_S3_X_FILE`
    /// when set; otherwise, only when no `PRESIGN_S3_*` credential and no `s3.accessKeyId` in the
    /// config file was given, the non-empty `AWS_*` fallback. An access key id from none of them came
    /// from the config file. Names only: values are never read.
    public static func origins(environment: [String: String], accessKeyIdInConfigFile: Bool = false) -> [String] {
        let keys: [(presign: String, aws: String)] = [
            ("PRESIGN_S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"),
            ("PRESIGN_S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
            ("PRESIGN_S3_SESSION_TOKEN", "AWS_SESSION_TOKEN"),
        ]
        func given(_ name: String) -> String? {
            if environment[name] != nil { return name }
            if environment[name + "_FILE"] != nil { return name + "_FILE" }
            return nil
        }
        let anyPresign = accessKeyIdInConfigFile || keys.contains { given($0.presign) != nil }
        var origins: [String] = []
        for (index, key) in keys.enumerated() {
            if let name = given(key.presign) {
                origins.append(name)
            } else if index == 0 && accessKeyIdInConfigFile {
                origins.append("config file s3.accessKeyId")
            } else if !anyPresign, let value = environment[key.aws], !value.isEmpty {
                origins.append(key.aws)
            }
        }
        return origins
    }
}
