import App
import Config
import ObjectStore
import Uploads

/// `presignd notifications setup [--push-endpoint URL]`: makes Ceph RGW push the bucket's upload events
/// to the server's events route. It creates (or updates: RGW's CreateTopic is idempotent) the persistent
/// topic `events.topicName` with the push endpoint and `events.secret` as its `OpaqueData` (which RGW
/// copies into every record: the events route's proof of origin), then puts one bucket-notification
/// rule per upload prefix of the types (`s3:ObjectCreated:*`, ids `<topic>-<n>`; RGW adds or updates
/// rules by id) and removes rules of earlier runs it no longer needs. It prints each step. Run again, it
/// changes nothing that is already right. AWS (SNS) and MinIO are set up on their side
/// (docs/operations.md, "Store events").
public enum NotificationsCommand {
    /// What the command printed and its exit status: 0 done, 1 storage refused a step, 2 configuration.
    public struct Outcome: Sendable {
        /// The lines printed (or the reason for status 2).
        public var output: String
        /// The exit status.
        public var status: Int32
    }

    /// The calls the command makes (`S3Client` meets them; tests may stand in).
    public protocol Storage {
        /// CreateTopic: the ARN.
        func createTopic(name: String, pushEndpoint: String, persistent: Bool, opaqueData: String?)
            throws(ObjectStoreError) -> String
        /// GET `?notification`.
        func bucketNotification() throws(ObjectStoreError) -> [NotificationRule]
        /// PUT `?notification` (RGW adds or updates by id).
        func putBucketNotification(_ rules: [NotificationRule]) throws(ObjectStoreError)
        /// DELETE `?notification=id`.
        func deleteBucketNotification(id: String?) throws(ObjectStoreError)
    }

    /// Runs the command with `config` at `nowSeconds`, its storage client made from `environment`.
    public static func run(
        config: PresigndConfig, pushEndpoint: String?, nowSeconds: Int64, environment: [String: String]
    ) -> Outcome {
        if let problem = problem(config, pushEndpoint: pushEndpoint) { return Outcome(output: problem, status: 2) }
        let client: S3Client
        do {
            client = try Application.storageClient(config: config, environment: environment, nowSeconds: nowSeconds)
        } catch {
            return Outcome(output: "presignd notifications setup: \(error)", status: 2)
        }
        return setUp(config: config, pushEndpoint: pushEndpoint, storage: client)
    }

    /// Why the command cannot run with `config`, or nil.
    static func problem(_ config: PresigndConfig, pushEndpoint: String?) -> String? {
        if config.events.secret == nil {
            return "presignd notifications setup: events.secret (PRESIGN_EVENTS_SECRET[_FILE]) is needed: "
                + "RGW sends it as each event's opaqueData"
        }
        if (pushEndpoint ?? config.events.pushEndpoint).isEmpty {
            return "presignd notifications setup: give --push-endpoint URL or events.pushEndpoint "
                + "(where RGW reaches \(config.events.path)/rgw)"
        }
        return nil
    }

    /// The rules of `config`'s upload prefixes for the topic `arn`, in prefix order.
    public static func rules(_ config: PresigndConfig, topicARN arn: String) -> [NotificationRule] {
        UploadPrefixes.of(config.types).enumerated().map { index, prefix in
            NotificationRule(
                id: "\(config.events.topicName)-\(index + 1)", topicARN: arn, events: ["s3:ObjectCreated:*"],
                prefix: prefix.isEmpty ? nil : prefix)
        }
    }

    /// The steps against `storage`.
    public static func setUp(config: PresigndConfig, pushEndpoint: String?, storage: some Storage) -> Outcome {
        if let problem = problem(config, pushEndpoint: pushEndpoint) { return Outcome(output: problem, status: 2) }
        let endpoint = pushEndpoint ?? config.events.pushEndpoint
        var lines: [String] = []
        do throws(ObjectStoreError) {
            let arn = try storage.createTopic(
                name: config.events.topicName, pushEndpoint: endpoint, persistent: true,
                opaqueData: config.events.secret?.unredacted)
            lines.append("topic \(arn): persistent, pushing to \(endpoint), opaqueData set from events.secret")
            let wanted = rules(config, topicARN: arn)
            let existing = try storage.bucketNotification()
            let stale = existing.filter { rule in
                rule.id.hasPrefix(config.events.topicName + "-") && !wanted.contains { $0.id == rule.id }
            }
            for rule in stale {
                try storage.deleteBucketNotification(id: rule.id)
                lines.append("notification \(rule.id): removed (no upload prefix needs it now)")
            }
            let missing = wanted.filter { rule in !existing.contains(rule) }
            if !missing.isEmpty { try storage.putBucketNotification(missing) }
            for rule in wanted {
                let scope = rule.prefix.map { "keys under \"\($0)\"" } ?? "every key of the bucket"
                let state = missing.contains(rule) ? "set" : "already set"
                lines.append(
                    "notification \(rule.id): s3:ObjectCreated:* for \(scope) of \(config.s3.bucket): \(state)")
            }
        } catch {
            lines.append("presignd notifications setup: storage refused: \(error)")
            return Outcome(output: lines.joined(separator: "\n"), status: 1)
        }
        return Outcome(output: lines.joined(separator: "\n"), status: 0)
    }
}

extension S3Client: NotificationsCommand.Storage {}
