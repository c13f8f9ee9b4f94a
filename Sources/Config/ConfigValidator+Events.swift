extension ConfigValidator {
    /// The `events` section.
    mutating func validateEvents() {
        let events = config.events
        if let reason = Self.prefixProblem(events.path) {
            report("events.path", "must be a path such as /events: \(reason)", got: ConfigText.quoted(events.path))
        } else if config.uppy.enabled && (events.path == config.uppy.prefix) {
            report("events.path", "must differ from uppy.prefix", got: ConfigText.quoted(events.path))
        }
        if let secret = events.secret, secret.count < 16 || secret.unredacted.contains(where: \.isNewline) {
            report("events.secret", "must be at least 16 bytes on one line")
        }
        if events.enabled && events.secret == nil && events.snsTopicArns.isEmpty
            && !failedKeyPaths.contains("events.secret")
        {
            report(
                "events.enabled",
                "needs events.secret (PRESIGN_EVENTS_SECRET[_FILE], for RGW and MinIO) or events.snsTopicArns (for SNS)"
            )
        }
        for (i, arn) in events.snsTopicArns.enumerated() where !arn.hasPrefix("arn:") || arn.count > 256 {
            report("events.snsTopicArns[\(i)]", "must be an SNS topic ARN (arn:aws:sns:…)", got: ConfigText.quoted(arn))
        }
        if events.snsCertificateHosts.isEmpty {
            report("events.snsCertificateHosts", "must name at least one host pattern")
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.*:")
        for (i, host) in events.snsCertificateHosts.enumerated()
        where host.isEmpty || host.count > 253 || !host.lowercased().allSatisfy(allowed.contains) {
            report(
                "events.snsCertificateHosts[\(i)]", "must be a host name, * for one label, and an optional :port",
                got: ConfigText.quoted(host))
        }
        if !events.snsCaFile.isEmpty { checkReadable("events.snsCaFile", events.snsCaFile) }
        check("events.recordDelayMs", events.recordDelayMs, in: 0...3_600_000)
        check("events.processIntervalMs", events.processIntervalMs, in: 10...60_000)
        check("events.reconcileIntervalMs", events.reconcileIntervalMs, in: 0...86_400_000)
        check("events.reconcileMinAgeSeconds", events.reconcileMinAgeSeconds, in: 0...86_400)
        check("events.reconcileMaxPages", events.reconcileMaxPages, in: 1...10_000)
        if events.topicName.isEmpty || events.topicName.count > 256
            || !events.topicName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            report(
                "events.topicName", "must be 1-256 of A-Z a-z 0-9 - _ (an SNS topic name)",
                got: ConfigText.quoted(events.topicName))
        }
        if !events.pushEndpoint.isEmpty,
            let reason = Self.httpURLProblem(events.pushEndpoint, allowsPath: true)
        {
            report(
                "events.pushEndpoint", "must be an http(s) URL: \(reason)", got: ConfigText.quoted(events.pushEndpoint))
        }
    }
}
