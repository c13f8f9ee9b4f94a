extension PresigndConfig {
    /// What an operator should know about how this configuration behaves, beyond its values:
    /// `--check-config` prints these on standard error, and the start-up log repeats them.
    public var notes: [String] {
        var notes: [String] = []
        if s3.provider != .custom {
            notes.append(
                "s3.provider \(s3.provider.rawValue): endpoint \(s3.endpoint), region \(s3.region), "
                    + "addressing \(s3.addressing.rawValue) (a preset value applies only where none was set)")
        }
        if presign.serveClientP {
            notes.append(
                "GET /presigned-url and GET /v1/storage/presigned-url serve client P's contract: their URLs are "
                    + "always path-style (client P takes the key from the path) whatever s3.addressing says "
                    + "(\(s3.addressing.rawValue), for every other route), and carry only the six query "
                    + "parameters it keeps, so credentials with a session token make start-up "
                    + (presign.temporaryCredentialsWithClientP == .refuse ? "refuse (exit 2)" : "warn")
                    + " (presign.temporaryCredentialsWithClientP)")
        }
        if s3.accessKeyId.isEmpty {
            notes.append(
                "no static S3 keys: at start presignd asks, in order, "
                    + s3.chainSources.filter { $0 != .environment }.map(\.rawValue).joined(separator: ", ")
                    + " (s3.credentialSources); the first that is configured decides, and when none is (not "
                    + "on EC2, no role) the start exits 2: set PRESIGN_S3_ACCESS_KEY_ID and "
                    + "PRESIGN_S3_SECRET_ACCESS_KEY to sign with static keys")
        }
        return notes
    }
}
