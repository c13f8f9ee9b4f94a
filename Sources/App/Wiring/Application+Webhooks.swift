import Config
import HTTPServer
import Logging
import Records
import WebhookDelivery
import Webhooks

extension Application {
    /// Step 4c: the deliverer of the webhook outbox to the configured endpoints (nil when none is): one
    /// leased runner per endpoint, its requests signed with `webhooks.secret` (and `previousSecret` during
    /// a rotation), its attempts on `webhooks.*`'s schedule; what it does is logged.
    static func makeWebhookDeliverer(
        _ config: PresigndConfig, store: any LifecycleStore, env: AppEnvironment, log: LogSink
    ) throws(AppError) -> WebhookDeliverer? {
        let webhooks = config.webhooks
        guard webhooks.enabled else { return nil }
        do throws(WebhookError) {
            guard let secret = webhooks.secret else { throw .invalidSecret("webhooks.secret is not set") }
            let signer = WebhookSigner(
                current: try WebhookSecret(parsing: secret.unredacted),
                previous: try webhooks.previousSecret.map { (s) throws(WebhookError) in
                    try WebhookSecret(parsing: s.unredacted)
                })
            var endpoints: [WebhookEndpoint] = []
            for endpoint in webhooks.allEndpoints {
                endpoints.append(WebhookEndpoint(name: endpoint.name, url: try WebhookURL(parsing: endpoint.url)))
            }
            let options = WebhookDeliveryOptions(
                timeoutMs: webhooks.timeoutMs,
                schedule: RetrySchedule(
                    baseMs: Int64(webhooks.backoffBaseMs), maxMs: Int64(webhooks.backoffMaxMs),
                    maxAttempts: webhooks.maxAttempts),
                retentionMs: Int64(webhooks.retentionHours) * 3_600_000, pollIntervalMs: webhooks.pollIntervalMs,
                concurrency: webhooks.concurrency, leaseTtlMs: Int64(config.records.leaseTtlMs),
                holder: "webhooks-" + env.newUUID())
            return WebhookDeliverer(
                store: store, endpoints: endpoints, signer: signer, options: options, now: env.nowMillis,
                events: { event in event.write(to: log) })
        } catch {
            throw .startup("webhooks", "\(error)")
        }
    }

    /// The deliveries' counters and the outbox's gauges (read from the store at scrape time, on any
    /// instance: the outbox is shared).
    static func registerWebhookMetrics(
        _ metrics: ServerMetrics, deliverer: WebhookDeliverer, store: any LifecycleStore, env: AppEnvironment
    ) {
        metrics.register(
            name: "presignd_webhook_deliveries_total",
            help: "Webhook attempts by this process, by outcome (delivered, retried, failed for good).",
            label: "outcome"
        ) {
            [
                ("delivered", deliverer.delivered.load(ordering: .relaxed)),
                ("failed", deliverer.failed.load(ordering: .relaxed)),
                ("retried", deliverer.retried.load(ordering: .relaxed)),
            ]
        }
        metrics.register(name: "presignd_webhook_pending", help: "Webhook deliveries not made yet (all endpoints).") {
            (try? store.webhookOutboxStats().pending) ?? -1
        }
        metrics.register(
            name: "presignd_webhook_failed", help: "Webhook deliveries failed for good and kept (until retention)."
        ) { (try? store.webhookOutboxStats().failed) ?? -1 }
        metrics.register(
            name: "presignd_webhook_oldest_pending_age_seconds",
            help: "Age of the event of the oldest webhook delivery not made yet (0 when none waits)."
        ) {
            guard let oldest = try? store.webhookOutboxStats().oldestPendingCreatedAtMs else { return 0 }
            return Int(max(0, env.nowMillis() - oldest) / 1000)
        }
        metrics.register(
            name: "presignd_webhook_leases_held", help: "Webhook endpoints whose deliveries this process sends now."
        ) { deliverer.leasesHeld.load(ordering: .relaxed) }
    }
}
