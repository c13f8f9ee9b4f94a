import HTTPServer
import Records
import Uploads

extension Application {
    /// The claims' counters: confirmations that waited for another claimant, and those that gave up.
    static func registerClaimMetrics(_ metrics: ServerMetrics, _ confirmer: Confirmer) {
        metrics.register(
            name: "presignd_claims_waited_total",
            help: "Confirmations that found their key claimed by another and waited for its outcome."
        ) { confirmer.claimWaits.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_claims_busy_total",
            help: "Claims still held by another at the end of the wait (409 CONFIRMATION_IN_PROGRESS, or retried)."
        ) { confirmer.claimsBusy.load(ordering: .relaxed) }
    }

    /// The store events' counters and gauges: received, recorded, rejected by reason, the inbox's lag;
    /// the reconciler's when it runs.
    static func registerEventMetrics(
        _ metrics: ServerMetrics, processor: EventProcessor, events: EventsService?, store: any LifecycleStore,
        reconciler: Reconciler?, env: AppEnvironment
    ) {
        if let events {
            metrics.register(
                name: "presignd_events_received_total", help: "Store event deliveries put into the inbox, by source.",
                label: "source"
            ) { events.received.withLock { $0.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 } } }
            metrics.register(
                name: "presignd_events_refused_total",
                help: "Store event deliveries refused (401, 400, 413, 503), by reason.", label: "reason"
            ) { events.refused.withLock { $0.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 } } }
        }
        metrics.register(name: "presignd_events_recorded_total", help: "Uploads recorded from the store's events.") {
            processor.recordedCount.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_events_already_recorded_total",
            help: "Store events whose upload was recorded already (by its confirmation or an earlier delivery)."
        ) { processor.alreadyRecorded.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_events_rejected_total", help: "Store events that could not be used, by reason.",
            label: "reason"
        ) { processor.rejectedByReason.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 } }
        metrics.register(
            name: "presignd_events_retried_total", help: "Inbox entries due again after a failure."
        ) { processor.retries.load(ordering: .relaxed) }
        metrics.register(name: "presignd_events_pending", help: "Store event deliveries waiting in the inbox.") {
            (try? store.inboxStats().pending) ?? -1
        }
        metrics.register(
            name: "presignd_events_lag_seconds",
            help: "Age of the oldest delivery waiting in the inbox (0 when none waits)."
        ) {
            guard let oldest = try? store.inboxStats().oldestPendingReceivedAtMs else { return 0 }
            return Int(max(0, env.nowMillis() - oldest) / 1000)
        }
        guard let reconciler else { return }
        metrics.register(name: "presignd_reconciler_passes_total", help: "Reconciler passes run.") {
            reconciler.passes.load(ordering: .relaxed)
        }
        metrics.register(name: "presignd_reconciler_objects_examined_total", help: "Objects the reconciler listed.") {
            reconciler.examined.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_reconciler_recorded_total",
            help: "Uploads the reconciler recorded (their events were lost)."
        ) { reconciler.recorded.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_reconciler_removed_total", help: "Objects of expired intents the reconciler deleted."
        ) { reconciler.removed.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_reconciler_refused_total", help: "Objects the reconciler refused as POST /images would."
        ) { reconciler.refused.load(ordering: .relaxed) }
    }
}
