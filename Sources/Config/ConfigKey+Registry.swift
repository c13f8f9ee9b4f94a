extension ConfigKey {
    /// Every scalar setting, in the order of the config file.
    static var all: [ConfigKey] { registry }

    /// The registry, built once: every load reads it for each key of each layer, and building its
    /// ~200 key paths anew each time had been most of a configuration load's cost. Never mutated after
    /// it is built (its closures capture only key paths), hence `nonisolated(unsafe)`.
    nonisolated(unsafe) private static let registry: [ConfigKey] = {
        [
            ConfigKey(section: "server", name: "host", kind: .string(\.server.host)),
            ConfigKey(section: "server", name: "port", kind: .int(\.server.port)),
            ConfigKey(section: "server", name: "eventLoops", kind: .int(\.server.eventLoops)),
            ConfigKey(section: "server", name: "workerThreads", kind: .int(\.server.workerThreads)),
            ConfigKey(section: "server", name: "workerQueueLimit", kind: .int(\.server.workerQueueLimit)),
            ConfigKey(section: "server", name: "maxConnections", kind: .int(\.server.maxConnections)),
            ConfigKey(section: "server", name: "headerTimeoutMs", kind: .int(\.server.headerTimeoutMs)),
            ConfigKey(section: "server", name: "bodyTimeoutMs", kind: .int(\.server.bodyTimeoutMs)),
            ConfigKey(section: "server", name: "idleTimeoutMs", kind: .int(\.server.idleTimeoutMs)),
            ConfigKey(section: "server", name: "drainTimeoutMs", kind: .int(\.server.drainTimeoutMs)),
            ConfigKey(section: "server", name: "drainDelayMs", kind: .int(\.server.drainDelayMs)),
            ConfigKey(section: "server", name: "maxPipelinedPerRead", kind: .int(\.server.maxPipelinedPerRead)),
            ConfigKey(section: "server", name: "maxJsonBodyBytes", kind: .int(\.server.maxJsonBodyBytes)),
            ConfigKey(section: "server", name: "metricsPort", kind: .int(\.server.metricsPort)),
            ConfigKey(section: "server", name: "listenInfoPath", kind: .optionalString(\.server.listenInfoPath)),

            ConfigKey(section: "tls", name: "enabled", kind: .bool(\.tls.enabled)),
            ConfigKey(section: "tls", name: "certificateFile", kind: .string(\.tls.certificateFile)),
            ConfigKey(section: "tls", name: "privateKeyFile", kind: .string(\.tls.privateKeyFile)),
            ConfigKey(section: "tls", name: "minVersion", kind: .choice(.of(\.tls.minVersion))),

            ConfigKey(section: "log", name: "level", kind: .string(\.log.level)),
            ConfigKey(section: "log", name: "accessLog", kind: .bool(\.log.accessLog)),

            ConfigKey(section: "auth", name: "mode", kind: .choice(.of(\.auth.mode))),
            ConfigKey(section: "auth", name: "devUserHeader", kind: .string(\.auth.devUserHeader)),
            ConfigKey(section: "auth", name: "devDefaultUserId", kind: .string(\.auth.devDefaultUserId)),
            ConfigKey(
                section: "auth", name: "hs256Secret", kind: .secret(\.auth.hs256Secret), allowsFileVariable: true),
            ConfigKey(section: "auth", name: "jwtAlgorithms", kind: .strings(\.auth.jwtAlgorithms)),
            ConfigKey(section: "auth", name: "jwtIssuer", kind: .optionalString(\.auth.jwtIssuer)),
            ConfigKey(section: "auth", name: "jwtAudience", kind: .optionalString(\.auth.jwtAudience)),
            ConfigKey(section: "auth", name: "jwtLeewaySeconds", kind: .int(\.auth.jwtLeewaySeconds)),
            ConfigKey(section: "auth", name: "jwtUserClaim", kind: .string(\.auth.jwtUserClaim)),
            ConfigKey(section: "auth", name: "jwtPublicKeyFiles", kind: .strings(\.auth.jwtPublicKeyFiles)),
            ConfigKey(section: "auth", name: "jwksFile", kind: .optionalString(\.auth.jwksFile)),
            ConfigKey(section: "auth", name: "maxTokenBytes", kind: .int(\.auth.maxTokenBytes)),
            ConfigKey(section: "auth", name: "apiKeys", kind: .apiKeys(\.auth.apiKeys), allowsFileVariable: true),

            ConfigKey(section: "limits", name: "enabled", kind: .bool(\.limits.enabled)),
            ConfigKey(section: "limits", name: "issuePerUserPerMinute", kind: .int(\.limits.issuePerUserPerMinute)),
            ConfigKey(
                section: "limits", name: "issuePerAddressPerMinute", kind: .int(\.limits.issuePerAddressPerMinute)),
            ConfigKey(section: "limits", name: "confirmPerUserPerMinute", kind: .int(\.limits.confirmPerUserPerMinute)),
            ConfigKey(
                section: "limits", name: "confirmPerAddressPerMinute", kind: .int(\.limits.confirmPerAddressPerMinute)),
            ConfigKey(section: "limits", name: "uppyPerUserPerMinute", kind: .int(\.limits.uppyPerUserPerMinute)),
            ConfigKey(
                section: "limits", name: "uppyPerAddressPerMinute", kind: .int(\.limits.uppyPerAddressPerMinute)),
            ConfigKey(section: "limits", name: "burst", kind: .int(\.limits.burst)),
            ConfigKey(section: "limits", name: "uploadsPerUserPerDay", kind: .int(\.limits.uploadsPerUserPerDay)),
            ConfigKey(section: "limits", name: "bytesPerUserPerDay", kind: .int(\.limits.bytesPerUserPerDay)),
            ConfigKey(section: "limits", name: "syncIntervalMs", kind: .int(\.limits.syncIntervalMs)),
            ConfigKey(section: "limits", name: "trustForwardedFor", kind: .bool(\.limits.trustForwardedFor)),
            ConfigKey(section: "limits", name: "trustedProxies", kind: .strings(\.limits.trustedProxies)),

            ConfigKey(section: "s3", name: "endpoint", kind: .string(\.s3.endpoint)),
            ConfigKey(section: "s3", name: "publicEndpoint", kind: .optionalString(\.s3.publicEndpoint)),
            ConfigKey(section: "s3", name: "region", kind: .string(\.s3.region)),
            ConfigKey(section: "s3", name: "bucket", kind: .string(\.s3.bucket)),
            ConfigKey(section: "s3", name: "addressing", kind: .choice(.of(\.s3.addressing))),
            ConfigKey(
                section: "s3", name: "accessKeyId", kind: .string(\.s3.accessKeyId), allowsFileVariable: true,
                fallbackVariable: "AWS_ACCESS_KEY_ID"),
            ConfigKey(
                section: "s3", name: "secretAccessKey", kind: .secret(\.s3.secretAccessKey),
                allowsFileVariable: true, fallbackVariable: "AWS_SECRET_ACCESS_KEY"),
            ConfigKey(
                section: "s3", name: "sessionToken", kind: .secret(\.s3.sessionToken), allowsFileVariable: true,
                fallbackVariable: "AWS_SESSION_TOKEN"),
            ConfigKey(section: "s3", name: "requestTimeoutMs", kind: .int(\.s3.requestTimeoutMs)),
            ConfigKey(section: "s3", name: "maxRetries", kind: .int(\.s3.maxRetries)),
            ConfigKey(section: "s3", name: "caFile", kind: .optionalString(\.s3.caFile)),
            ConfigKey(section: "s3", name: "maxClockSkewSeconds", kind: .int(\.s3.maxClockSkewSeconds)),
            ConfigKey(section: "s3", name: "verifyUploads", kind: .bool(\.s3.verifyUploads)),
            ConfigKey(section: "s3", name: "startupCheck", kind: .choice(.of(\.s3.startupCheck))),
            ConfigKey(section: "s3", name: "checksums", kind: .strings(\.s3.checksums)),
            ConfigKey(section: "s3", name: "provider", kind: .choice(.of(\.s3.provider))),
            ConfigKey(section: "s3", name: "accountId", kind: .string(\.s3.accountId)),
            ConfigKey(section: "s3", name: "connectHost", kind: .optionalString(\.s3.connectHost)),
            ConfigKey(section: "s3", name: "credentialSources", kind: .strings(\.s3.credentialSources)),
            ConfigKey(section: "s3", name: "stsEndpoint", kind: .optionalString(\.s3.stsEndpoint)),
            ConfigKey(section: "s3", name: "imdsV1Fallback", kind: .bool(\.s3.imdsV1Fallback)),
            ConfigKey(
                section: "s3", name: "refreshBeforeExpirySeconds", kind: .int(\.s3.refreshBeforeExpirySeconds)),
            ConfigKey(section: "s3", name: "refreshJitterSeconds", kind: .int(\.s3.refreshJitterSeconds)),
            ConfigKey(section: "s3", name: "minimumUrlLifetimeSeconds", kind: .int(\.s3.minimumUrlLifetimeSeconds)),

            ConfigKey(section: "presign", name: "expiresSeconds", kind: .int(\.presign.expiresSeconds)),
            ConfigKey(section: "presign", name: "defaultPostType", kind: .string(\.presign.defaultPostType)),
            ConfigKey(section: "presign", name: "readUrlExpiresSeconds", kind: .int(\.presign.readUrlExpiresSeconds)),
            ConfigKey(section: "presign", name: "readUrlWindowSeconds", kind: .int(\.presign.readUrlWindowSeconds)),
            ConfigKey(section: "presign", name: "cdnBaseUrl", kind: .optionalString(\.presign.cdnBaseUrl)),
            ConfigKey(section: "presign", name: "signIfNoneMatch", kind: .bool(\.presign.signIfNoneMatch)),
            ConfigKey(section: "presign", name: "serveClientP", kind: .bool(\.presign.serveClientP)),
            ConfigKey(
                section: "presign", name: "temporaryCredentialsWithClientP",
                kind: .choice(.of(\.presign.temporaryCredentialsWithClientP))),

            ConfigKey(
                section: "records", name: "url", kind: .recordsLocation(\.records.location),
                allowsFileVariable: true),
            ConfigKey(section: "records", name: "intentBatchSize", kind: .int(\.records.intentBatchSize)),
            ConfigKey(section: "records", name: "groupCommitMaxBatch", kind: .int(\.records.groupCommitMaxBatch)),
            ConfigKey(section: "records", name: "poolSize", kind: .int(\.records.poolSize)),
            ConfigKey(section: "records", name: "janitorIntervalMs", kind: .int(\.records.janitorIntervalMs)),
            ConfigKey(section: "records", name: "janitorBatchSize", kind: .int(\.records.janitorBatchSize)),
            ConfigKey(section: "records", name: "janitorGraceMs", kind: .int(\.records.janitorGraceMs)),
            ConfigKey(section: "records", name: "leaseTtlMs", kind: .int(\.records.leaseTtlMs)),
            ConfigKey(section: "records", name: "intentQueueLimit", kind: .int(\.records.intentQueueLimit)),
            ConfigKey(section: "records", name: "intentWriterLanes", kind: .int(\.records.intentWriterLanes)),
            ConfigKey(section: "records", name: "intentCommitTimeoutMs", kind: .int(\.records.intentCommitTimeoutMs)),
            ConfigKey(
                section: "records", name: "deleteUnconfirmedObjects", kind: .bool(\.records.deleteUnconfirmedObjects)),
            ConfigKey(section: "records", name: "busyTimeoutMs", kind: .int(\.records.busyTimeoutMs)),
            ConfigKey(
                section: "records", name: "postgresStatements", kind: .choice(.of(\.records.postgresStatements))),
            ConfigKey(section: "records", name: "claimLeaseSeconds", kind: .int(\.records.claimLeaseSeconds)),
            ConfigKey(section: "records", name: "claimRetentionSeconds", kind: .int(\.records.claimRetentionSeconds)),

            ConfigKey(section: "explain", name: "enabled", kind: .bool(\.explain.enabled)),
            ConfigKey(section: "compat", name: "profiles", kind: .strings(\.compat.profiles)),
            ConfigKey(section: "uppy", name: "enabled", kind: .bool(\.uppy.enabled)),
            ConfigKey(section: "uppy", name: "prefix", kind: .string(\.uppy.prefix)),
            ConfigKey(section: "uppy", name: "defaultType", kind: .string(\.uppy.defaultType)),
            ConfigKey(section: "uppy", name: "urlExpiresSeconds", kind: .int(\.uppy.urlExpiresSeconds)),
            ConfigKey(section: "uppy", name: "paramsMethod", kind: .choice(.of(\.uppy.paramsMethod))),
            ConfigKey(section: "uppy", name: "abortAfterSeconds", kind: .int(\.uppy.abortAfterSeconds)),
            ConfigKey(section: "uppy", name: "janitorMaxAborts", kind: .int(\.uppy.janitorMaxAborts)),
            ConfigKey(section: "uppy", name: "completeTimeoutMs", kind: .int(\.uppy.completeTimeoutMs)),
            ConfigKey(section: "uppy", name: "completeMaxBodyBytes", kind: .int(\.uppy.completeMaxBodyBytes)),

            ConfigKey(section: "multipart", name: "enabled", kind: .bool(\.multipart.enabled)),
            ConfigKey(
                section: "multipart", name: "backgroundUrlSeconds", kind: .int(\.multipart.backgroundUrlSeconds)),
            ConfigKey(
                section: "multipart", name: "autoCompleteAfterSeconds",
                kind: .int(\.multipart.autoCompleteAfterSeconds)),
            ConfigKey(section: "multipart", name: "checkEverySeconds", kind: .int(\.multipart.checkEverySeconds)),
            ConfigKey(section: "multipart", name: "maxParts", kind: .int(\.multipart.maxParts)),

            ConfigKey(section: "events", name: "enabled", kind: .bool(\.events.enabled)),
            ConfigKey(section: "events", name: "path", kind: .string(\.events.path)),
            ConfigKey(section: "events", name: "secret", kind: .secret(\.events.secret), allowsFileVariable: true),
            ConfigKey(section: "events", name: "snsTopicArns", kind: .strings(\.events.snsTopicArns)),
            ConfigKey(section: "events", name: "snsCertificateHosts", kind: .strings(\.events.snsCertificateHosts)),
            ConfigKey(section: "events", name: "snsCaFile", kind: .string(\.events.snsCaFile)),
            ConfigKey(section: "events", name: "recordDelayMs", kind: .int(\.events.recordDelayMs)),
            ConfigKey(section: "events", name: "processIntervalMs", kind: .int(\.events.processIntervalMs)),
            ConfigKey(section: "events", name: "reconcileIntervalMs", kind: .int(\.events.reconcileIntervalMs)),
            ConfigKey(section: "events", name: "reconcileMinAgeSeconds", kind: .int(\.events.reconcileMinAgeSeconds)),
            ConfigKey(section: "events", name: "reconcileMaxPages", kind: .int(\.events.reconcileMaxPages)),
            ConfigKey(section: "events", name: "topicName", kind: .string(\.events.topicName)),
            ConfigKey(section: "events", name: "pushEndpoint", kind: .string(\.events.pushEndpoint)),

            ConfigKey(section: "webhooks", name: "url", kind: .string(\.webhooks.url)),
            ConfigKey(section: "webhooks", name: "events", kind: .strings(\.webhooks.events)),
            ConfigKey(section: "webhooks", name: "secret", kind: .secret(\.webhooks.secret), allowsFileVariable: true),
            ConfigKey(
                section: "webhooks", name: "previousSecret", kind: .secret(\.webhooks.previousSecret),
                allowsFileVariable: true),
            ConfigKey(section: "webhooks", name: "timeoutMs", kind: .int(\.webhooks.timeoutMs)),
            ConfigKey(section: "webhooks", name: "maxAttempts", kind: .int(\.webhooks.maxAttempts)),
            ConfigKey(section: "webhooks", name: "backoffBaseMs", kind: .int(\.webhooks.backoffBaseMs)),
            ConfigKey(section: "webhooks", name: "backoffMaxMs", kind: .int(\.webhooks.backoffMaxMs)),
            ConfigKey(section: "webhooks", name: "retentionHours", kind: .int(\.webhooks.retentionHours)),
            ConfigKey(section: "webhooks", name: "pollIntervalMs", kind: .int(\.webhooks.pollIntervalMs)),
            ConfigKey(section: "webhooks", name: "concurrency", kind: .int(\.webhooks.concurrency)),

            ConfigKey(section: "scan", name: "clamdAddress", kind: .string(\.scan.clamdAddress)),
            ConfigKey(section: "scan", name: "maxBytes", kind: .int(\.scan.maxBytes)),
            ConfigKey(section: "scan", name: "timeoutMs", kind: .int(\.scan.timeoutMs)),
            ConfigKey(section: "scan", name: "chunkBytes", kind: .int(\.scan.chunkBytes)),
            ConfigKey(section: "scan", name: "retryBaseMs", kind: .int(\.scan.retryBaseMs)),
            ConfigKey(section: "scan", name: "retryMaxMs", kind: .int(\.scan.retryMaxMs)),
            ConfigKey(section: "scan", name: "pollIntervalMs", kind: .int(\.scan.pollIntervalMs)),

            ConfigKey(section: "cors", name: "allowedOrigins", kind: .strings(\.cors.allowedOrigins)),
            ConfigKey(section: "cors", name: "allowCredentials", kind: .bool(\.cors.allowCredentials)),
            ConfigKey(section: "cors", name: "allowedHeaders", kind: .strings(\.cors.allowedHeaders)),
            ConfigKey(section: "cors", name: "maxAgeSeconds", kind: .int(\.cors.maxAgeSeconds)),
        ]
    }()

    /// The registry by `section.name`.
    nonisolated(unsafe) private static let byPath: [String: ConfigKey] = Dictionary(
        registry.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

    /// The setting at `section.name`, if there is one.
    static func find(section: String, name: String) -> ConfigKey? {
        byPath["\(section).\(name)"]
    }
}
