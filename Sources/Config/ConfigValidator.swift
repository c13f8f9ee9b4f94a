/// Checks a merged configuration and collects every problem, each with its key path.
struct ConfigValidator {
    /// The configuration under check.
    let config: PresigndConfig
    /// Where values came from, when a variable or flag set them (added to messages).
    let origins: [String: String]
    /// Reads a file named by the configuration, to check that it is readable (contents are discarded).
    let readFile: (String) throws -> [UInt8]
    /// Key paths whose value already failed to load (an unreadable `*_FILE`, say): checks that a
    /// value is missing skip them, so the one real problem is not followed by an echo of it.
    let failedKeyPaths: Set<String>
    /// Everything found wrong.
    var problems: [ConfigProblem] = []

    /// Upper bound of every URL lifetime: seven days, the SigV4 query-string maximum.
    static let maxExpiresSeconds = 604_800

    /// Makes a validator for `config` that checks files with `readFile`.
    init(
        config: PresigndConfig, origins: [String: String], failedKeyPaths: Set<String> = [],
        readFile: @escaping (String) throws -> [UInt8]
    ) {
        self.config = config
        self.origins = origins
        self.failedKeyPaths = failedKeyPaths
        self.readFile = readFile
    }

    /// Records `message` for `keyPath`, with the value shown as `got` and its origin when not a file.
    mutating func report(_ keyPath: String, _ message: String, got: String? = nil) {
        var detail: [String] = []
        if let got { detail.append("got \(got)") }
        if let origin = origins[keyPath] { detail.append("from \(origin)") }
        let suffix = detail.isEmpty ? "" : " (" + detail.joined(separator: " ") + ")"
        problems.append(ConfigProblem(keyPath: keyPath, message: message + suffix))
    }

    /// Checks that `value` lies in `range`.
    mutating func check(_ keyPath: String, _ value: Int, in range: ClosedRange<Int>) {
        if !range.contains(value) {
            report(keyPath, "must be \(range.lowerBound)...\(range.upperBound)", got: "\(value)")
        }
    }

    /// Checks that the file at `path`, named by `keyPath`, can be read; the problem names the path
    /// and the system's reason, never the contents.
    mutating func checkReadable(_ keyPath: String, _ path: String) {
        do {
            _ = try readFile(path)
        } catch {
            report(keyPath, "cannot read \(ConfigText.quoted(path)): \(error)")
        }
    }

    /// Checks that `value` is one of `choices`.
    mutating func check(_ keyPath: String, _ value: String, oneOf choices: [String]) {
        if !choices.contains(value) {
            report(keyPath, "must be one of \(choices.joined(separator: ", "))", got: ConfigText.quoted(value))
        }
    }

    /// Runs every check.
    mutating func validate() {
        validateServer()
        validateLog()
        validateAuth()
        validateS3()
        validatePresign()
        validateTypes()
        validateRecords()
        validateLimits()
        validateTLS()
        validateCompat()
        validateUppy()
        validateEvents()
        validateWebhooks()
        validateScan()
    }

    /// The `server` section.
    mutating func validateServer() {
        let server = config.server
        if server.host.isEmpty || server.host.utf8.count > 253
            || !server.host.unicodeScalars.allSatisfy({ $0.isASCII && Self.hostCharacters.contains(Character($0)) })
        {
            report("server.host", "must be an IP address or a host name", got: ConfigText.quoted(server.host))
        }
        check("server.port", server.port, in: 0...65535)  // 0: any free port, for tests
        check("server.eventLoops", server.eventLoops, in: 0...256)
        check("server.workerThreads", server.workerThreads, in: 1...1024)
        check("server.workerQueueLimit", server.workerQueueLimit, in: 1...1_000_000)
        check("server.maxConnections", server.maxConnections, in: 1...1_000_000)
        check("server.headerTimeoutMs", server.headerTimeoutMs, in: 1...3_600_000)
        check("server.bodyTimeoutMs", server.bodyTimeoutMs, in: 1...3_600_000)
        check("server.idleTimeoutMs", server.idleTimeoutMs, in: 1...3_600_000)
        check("server.drainTimeoutMs", server.drainTimeoutMs, in: 1...3_600_000)
        check("server.drainDelayMs", server.drainDelayMs, in: 0...600_000)
        check("server.maxPipelinedPerRead", server.maxPipelinedPerRead, in: 1...1024)
        check("server.maxJsonBodyBytes", server.maxJsonBodyBytes, in: 1...16_777_216)
        check("server.metricsPort", server.metricsPort, in: 0...65535)
        if server.metricsPort != 0 && server.metricsPort == server.port {
            report("server.metricsPort", "must differ from server.port (0 serves metrics on the main port)")
        }
    }

    /// Characters of a listening address: host names, IPv4 and IPv6 literals, an IPv6 zone.
    static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-_%")

    /// The `log` section.
    mutating func validateLog() {
        check("log.level", config.log.level, oneOf: ["debug", "info", "warn", "error"])
    }

    /// `tchar` of RFC 9110, section 5.6.2.
    static let tokenCharacters = Set("!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// Characters of an API key id. The caller id made from it (`apikey-<id>`) follows
    /// `UserIdRule` when the id is lower case and is otherwise hashed, as a token subject is.
    static let apiKeyIdCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")

    /// The `presign` section (its type reference is checked with the types).
    mutating func validatePresign() {
        let presign = config.presign
        check("presign.expiresSeconds", presign.expiresSeconds, in: 1...Self.maxExpiresSeconds)
        check("presign.readUrlExpiresSeconds", presign.readUrlExpiresSeconds, in: 1...Self.maxExpiresSeconds)
        check("presign.readUrlWindowSeconds", presign.readUrlWindowSeconds, in: 0...Self.maxExpiresSeconds)
        if let cdn = presign.cdnBaseUrl, let reason = Self.httpURLProblem(cdn, allowsPath: true) {
            report(
                "presign.cdnBaseUrl", "must be empty or http(s)://host[:port][/path]: \(reason)",
                got: ConfigText.quoted(cdn))
        }
        if let type = config.type(named: presign.defaultPostType) {
            if type.requiresChatroomId {
                report(
                    "presign.defaultPostType", "must name a type that does not require chatroomId (POST sends none)",
                    got: ConfigText.quoted(presign.defaultPostType))
            }
        } else {
            report(
                "presign.defaultPostType", "must name a type in types", got: ConfigText.quoted(presign.defaultPostType))
        }
    }

    /// The `records` section (`records.url` was parsed when it was read).
    mutating func validateRecords() {
        let records = config.records
        check("records.intentBatchSize", records.intentBatchSize, in: 1...65536)
        check("records.groupCommitMaxBatch", records.groupCommitMaxBatch, in: 1...65536)
        check("records.poolSize", records.poolSize, in: 1...256)
        check("records.janitorIntervalMs", records.janitorIntervalMs, in: 1000...86_400_000)
        check("records.janitorBatchSize", records.janitorBatchSize, in: 1...100_000)
        check("records.janitorGraceMs", records.janitorGraceMs, in: 0...86_400_000)
        check("records.leaseTtlMs", records.leaseTtlMs, in: 1000...3_600_000)
        check("records.busyTimeoutMs", records.busyTimeoutMs, in: 0...600_000)
        check("records.intentQueueLimit", records.intentQueueLimit, in: 1...10_000_000)
        check("records.intentWriterLanes", records.intentWriterLanes, in: 0...8)
        check("records.claimLeaseSeconds", records.claimLeaseSeconds, in: 1...86_400)
        check("records.claimRetentionSeconds", records.claimRetentionSeconds, in: 60...365 * 86_400)
        check("records.intentCommitTimeoutMs", records.intentCommitTimeoutMs, in: 10...60_000)
        if records.intentQueueLimit < records.intentBatchSize {
            report("records.intentQueueLimit", "must be at least records.intentBatchSize (\(records.intentBatchSize))")
        }
    }
}
