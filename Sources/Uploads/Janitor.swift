import ObjectStore
import Records
import Synchronization
import System

/// Deletes expired, never-confirmed intents in bounded batches, and the objects they leave behind.
///
/// An intent is removed once its URL has been expired for `graceMs` (an upload that finished at the last
/// second can still be confirmed meanwhile). Before its intent goes, the janitor deletes the object at
/// the intent's permanent key, if any: only a confirmation that promoted the upload (copy) and then
/// failed to store its record can have put it there, and nothing else would ever find it. The uploaded
/// object itself (at the upload key) is deleted only when `deleteObjects` is set
/// (`records.deleteUnconfirmedObjects`; otherwise a bucket lifecycle rule is expected to expire it).
///
/// Each intent is claimed first (`ClaimStore`, claimant `janitor`), so a late confirmation, the store's
/// event or the reconciler cannot record the upload while its objects are deleted: a claim held by one of
/// them is left for the next sweep; a won claim is settled as `expired` after the deletes and before the
/// intent goes, so a confirmation that comes after reads 410 `INTENT_EXPIRED` and never records an object
/// the janitor deleted. An intent whose key was recorded meanwhile, or whose claim an earlier sweep
/// settled, just goes.
///
/// An intent is removed only after its objects are gone, so a failure anywhere (a storage error
/// mid-batch, the database going away, a kill -9 of the process) leaves the intents not yet handled
/// for the next sweep, which deletes again (a DELETE of a missing object succeeds) and finishes the
/// work.
///
/// Across instances (and processes on one SQLite file) the whole run (every pass of `runPasses`) happens
/// in one process at a time: `start` runs it every `intervalMs` under a `LeasedRunner` on the lease row
/// `janitor` (holder: this process's id), and every write that settles work (an intent batch's quota
/// releases and deletes in one transaction, finished pending deletions, the multipart ledger's removals)
/// goes through the lease's fence (`PassFence.write`): a pass whose lease was lost writes nothing more
/// and stops at once; the next holder (after `leaseTtlMs` when the holder crashed) finishes the work.
/// Reports its start and stop, the lease taken and lost, each sweep that removed something and each
/// that stopped on an error (`LifecycleEvent`, logged by App); the counters below feed `/metrics`.
/// Settled claims are pruned after `claimRetentionMs`.
public final class Janitor: @unchecked Sendable {
    /// How long after its URL expired an intent is kept by default (an upload that finished at the last
    /// second can still be confirmed meanwhile); `records.janitorGraceMs`.
    public static let graceMs: Int64 = 5 * 60 * 1000
    /// The name of the janitor's lease row.
    public static let leaseName = "janitor"
    /// How many whole UTC days of quota reservations are kept before today's (older days count for
    /// nothing: a reservation counts only in its own day).
    static let quotaRetentionDays: Int64 = 2

    private let store: any LifecycleStore
    private let storage: (any ObjectStorage)?
    private let graceMs: Int64
    private let claimLeaseMs: Int64
    private let claimRetentionMs: Int64
    private let deleteObjects: Bool
    private let batchSize: Int
    private let intervalMs: Int
    private let env: UploadEnvironment
    private let events: LifecycleLog
    /// The `upload.expired` event of an intent removed unconfirmed, written as its claim is settled.
    private let webhooks: WebhookEvents
    private let leaseTtlMs: Int64
    /// This process's id in the lease row.
    public let holder: String
    /// The runner of the passes under the lease, while started.
    private var runner: LeasedRunner?
    /// Aborts old multipart uploads after each pass (the Uppy routes), when they are on.
    public var multipart: MultipartJanitor?
    /// Records uploads whose event was lost, after each pass, when store events are on.
    public var reconciler: Reconciler?
    /// Completes the native API's uploads their apps left whole in storage, after each pass, when the
    /// native API is on (`NativeUploads.autoComplete`).
    public var nativeUploads: NativeUploads?
    /// When the reconciler last ran (epoch ms).
    private var reconciledAtMs: Int64 = 0

    /// Sweeps finished (with or without an error).
    public let sweeps = Atomic<Int>(0)
    /// Sweeps that stopped on an error (their remaining intents wait for the next one).
    public let failedSweeps = Atomic<Int>(0)
    /// Intents removed.
    public let intentsRemoved = Atomic<Int>(0)
    /// Daily quota reservations given back (intents that expired unconfirmed).
    public let quotasReleased = Atomic<Int>(0)
    /// Objects deleted (upload and permanent keys, and replaced records' objects).
    public let objectsDeleted = Atomic<Int>(0)
    /// Replaced records' objects deleted from the pending deletions (`RecordStore.fillSlot`).
    public let replacedDeleted = Atomic<Int>(0)
    /// Expired intents left for the next sweep because another claimant held them.
    public let intentsHeld = Atomic<Int>(0)
    /// Settled claims pruned.
    public let claimsPruned = Atomic<Int>(0)
    /// 1 while this process holds the janitor's lease, else 0 (`presignd_janitor_lease_held`).
    public let leaseHeld = Atomic<Int>(0)
    /// Times this process took the lease (`presignd_janitor_lease_acquired_total`).
    public let leasesAcquired = Atomic<Int>(0)
    /// Times this process lost the lease while holding it (`presignd_janitor_lease_lost_total`).
    public let leasesLost = Atomic<Int>(0)

    /// A janitor of `store`'s intents and `storage`'s objects (nil: objects are left alone); its claims
    /// hold `claimLeaseMs` (renewed while an intent's objects are deleted), settled claims are kept
    /// `claimRetentionMs` (a confirmation of an expired key answers 410 until then, 404 after); an intent
    /// goes `graceMs` after its URL expired (`records.janitorGraceMs`; tests race it at 0). Started, it
    /// runs under the lease `janitor` as `holder` (default: `janitor-` and a new UUID), which lasts
    /// `leaseTtlMs` without renewal.
    public init(
        store: any LifecycleStore, storage: (any ObjectStorage)?, deleteObjects: Bool, batchSize: Int, intervalMs: Int,
        env: UploadEnvironment, events: @escaping LifecycleLog, claimLeaseMs: Int64 = 60_000,
        claimRetentionMs: Int64 = 7 * 86_400_000, graceMs: Int64 = Janitor.graceMs, leaseTtlMs: Int64 = 30_000,
        holder: String? = nil, webhooks: WebhookEvents = .off
    ) {
        self.store = store
        self.storage = storage
        self.graceMs = max(0, graceMs)
        self.claimLeaseMs = claimLeaseMs
        self.claimRetentionMs = claimRetentionMs
        self.deleteObjects = deleteObjects
        self.batchSize = batchSize
        self.intervalMs = intervalMs
        self.env = env
        self.events = events
        self.webhooks = webhooks
        self.leaseTtlMs = max(1, leaseTtlMs)
        self.holder = holder ?? "janitor-" + env.newUUID()
    }

    /// Starts the runner: whenever this process holds the lease, a run of the passes every `intervalMs`.
    public func start() {
        events(
            .janitorStarted(
                intervalMs: intervalMs, batchSize: batchSize, deleteUnconfirmedObjects: deleteObjects, holder: holder,
                leaseTtlMs: leaseTtlMs))
        let runner = LeasedRunner(
            store: store,
            options: .init(name: Janitor.leaseName, holder: holder, ttlMs: leaseTtlMs, intervalMs: intervalMs),
            now: env.nowMillis, events: { [self] event in noted(event) }
        ) { [self] pass in runPasses(fence: .lease(pass)) }
        self.runner = runner
        runner.start()
    }

    /// Stops the runner (a pass in progress finishes the item in hand, writes its outcome under the lease,
    /// and stops), waits, and gives the lease up.
    public func stop() {
        guard let running = runner else { return }
        running.stop()
        runner = nil
        leaseHeld.store(0, ordering: .relaxed)
        events(.janitorStopped(sweeps: sweeps.load(ordering: .relaxed)))
    }

    /// Counts and reports what the runner did.
    private func noted(_ event: LeasedRunner.Event) {
        switch event {
        case .acquired(let lease, let tookOver):
            leaseHeld.store(1, ordering: .relaxed)
            leasesAcquired.add(1, ordering: .relaxed)
            events(.janitorLeaseAcquired(holder: lease.holder, token: lease.token, tookOver: tookOver))
        case .lost(let lease):
            leaseHeld.store(0, ordering: .relaxed)
            leasesLost.add(1, ordering: .relaxed)
            events(.janitorLeaseLost(holder: lease.holder, token: lease.token))
        case .storeFailed(let error):
            events(.janitorLeaseStoreFailed(error: error))
        case .passFinished:
            break
        }
    }

    /// The passes of one run, each under `fence`: expired intents, replaced records' objects, settled
    /// claims and old quota days, old multipart uploads, and the reconciler when its interval has passed.
    /// A pass that finds the fence lost stops, and so does the run.
    public func runPasses(fence: PassFence = .always) {
        _ = sweep(fence: fence)
        guard fence.holds else { return }
        _ = sweepReplaced(fence: fence)
        guard fence.holds else { return }
        // Prunes of rows nothing reads any more: harmless if a former holder's overlaps, so not fenced.
        _ = pruneClaims()
        _ = try? store.pruneQuotas(
            beforeDayMs: QuotaRequest.dayStart(of: env.nowMillis()) - Janitor.quotaRetentionDays * QuotaRequest.dayMs,
            limit: max(1, min(batchSize, 1000)))
        guard fence.holds else { return }
        multipart?.sweep(fence: fence)
        guard fence.holds else { return }
        nativeUploads?.autoComplete(limit: batchSize, fence: fence) { [events] id, error in
            events(.multipartPassStopped(error: "native upload \(id): \(error)"))
        }
        guard fence.holds else { return }
        if let reconciler, env.nowMillis() - reconciledAtMs >= Int64(reconciler.intervalMs) {
            reconciledAtMs = env.nowMillis()
            reconciler.pass(fence: fence)
        }
    }

    /// One pass: removes batches until none is left (or an error, or `fence` no longer holds); returns
    /// how many intents were removed. Each batch's quota releases and intent deletes are one write through
    /// `fence`; refused (the lease lost), the pass stops and the next holder settles the batch (its claims
    /// read `.finished`).
    @discardableResult
    public func sweep(fence: PassFence = .always) -> Int {
        var removed = 0
        var deleted = 0
        // Started at the first won claim: keeps each claim alive while its objects are deleted.
        var renewer: ClaimRenewer?
        defer {
            renewer?.stop()
            sweeps.add(1, ordering: .relaxed)
            if removed > 0 { events(.janitorSwept(intentsRemoved: removed, objectsDeleted: deleted)) }
        }
        while true {
            var done: [String] = []
            // The keys that expired unconfirmed: their owners get their daily quota back.
            var unconfirmed: [String] = []
            var claimed: (key: String, token: String)?
            do {
                let expired = try store.expiredIntents(nowMs: env.nowMillis() - graceMs, limit: batchSize)
                if expired.isEmpty { return removed }
                for intent in expired {
                    guard fence.holds else { break }
                    let token = env.newUUID()
                    let outcome = try store.claimIntent(
                        ClaimRequest(
                            imageKey: intent.imageKey, intentCreatedAtMs: intent.createdAtMs, claimant: .janitor,
                            token: token, nowMs: env.nowMillis(), leaseMs: claimLeaseMs))
                    switch outcome {
                    case .won:
                        claimed = (intent.imageKey, token)
                        if renewer == nil, storage != nil {
                            renewer = ClaimRenewer(store: store, leaseMs: claimLeaseMs, env: env)
                            renewer?.start()
                        }
                        renewer?.hold(intent.imageKey, token: token)
                        defer { renewer?.letGo() }
                        guard let count = try deleteObjects(of: intent, under: renewer) else {
                            // Taken over while a delete ran (it outlasted the lease): the next sweep sees.
                            claimed = nil
                            intentsHeld.add(1, ordering: .relaxed)
                            continue
                        }
                        deleted += count
                        claimed = nil
                        // Settled before the intent goes: a late confirmation reads 410, never records.
                        // `upload.expired` goes in with the settled claim.
                        if try store.expireClaim(
                            imageKey: intent.imageKey, token: token, reason: "unconfirmed", nowMs: env.nowMillis(),
                            events: webhooks.expired(intent, objectDeleted: deleteObjects && storage != nil))
                        {
                            done.append(intent.imageKey)
                            unconfirmed.append(intent.imageKey)
                        }
                    case .finished(let claim):
                        // Settled by an earlier sweep (the process died before the intent went), or recorded
                        // and its record deleted since: nothing of it is ours to delete.
                        done.append(intent.imageKey)
                        if claim.state == .expired { unconfirmed.append(intent.imageKey) }
                    case .recorded:
                        // Recorded since (a late confirmation won): its quota stays used.
                        done.append(intent.imageKey)
                    case .held:
                        intentsHeld.add(1, ordering: .relaxed)
                    }
                }
                guard try settle(done, unconfirmed: unconfirmed, fence: fence) else {
                    events(.janitorPassFencedOff(intentsLeft: done.count))
                    return removed
                }
                removed += done.count
                // Fewer than a batch, or nothing done (all held: the next sweep), or fenced off: stop here.
                if expired.count < batchSize || done.isEmpty || !fence.holds { return removed }
            } catch {
                if let claimed { _ = try? store.releaseClaim(imageKey: claimed.key, token: claimed.token) }
                // The intents whose objects are gone may go now; the rest wait for the next sweep.
                if (try? settle(done, unconfirmed: unconfirmed, fence: fence)) == true { removed += done.count }
                failedSweeps.add(1, ordering: .relaxed)
                events(.janitorPassStopped(error: "\(error)"))
                return removed
            }
        }
    }

    /// Gives back the reservations of `unconfirmed` and deletes the intents `done`, in one write through
    /// `fence` (under a lease one transaction, so a crash never leaves one without the other; unfenced the
    /// releases go first, so a crash between leaves the next sweep to release again, as `.finished`
    /// expired, never an intent gone with its reservation still held). False when the fence refused it
    /// (nothing written).
    private func settle(_ done: [String], unconfirmed: [String], fence: PassFence) throws(RecordsError) -> Bool {
        guard !done.isEmpty else { return true }
        guard
            let released = try fence.write(
                to: store,
                { (writes) throws(RecordsError) -> Int in
                    let released = unconfirmed.isEmpty ? 0 : try writes.releaseQuotas(imageKeys: unconfirmed)
                    try writes.deleteIntents(imageKeys: done)
                    return released
                })
        else { return false }
        quotasReleased.add(released, ordering: .relaxed)
        intentsRemoved.add(done.count, ordering: .relaxed)
        return true
    }

    /// Removes settled claims older than `claimRetentionMs`, at most `batchSize` per pass; how many.
    @discardableResult
    public func pruneClaims() -> Int {
        guard
            let pruned = try? store.pruneClaims(
                settledBeforeMs: env.nowMillis() - claimRetentionMs, limit: max(1, min(batchSize, 1000)))
        else { return 0 }
        claimsPruned.add(pruned, ordering: .relaxed)
        return pruned
    }

    /// One pass over the pending deletions of replaced records' objects (what a replacement left when
    /// its own delete failed or the process died after the new record was durable): deletes each object,
    /// then finishes the rows of those deleted in one write through `fence`, at most `batchSize` per pass.
    /// Returns how many were finished; a failure leaves the rest for the next pass (a lost lease all of
    /// them: a DELETE of a missing object succeeds).
    @discardableResult
    public func sweepReplaced(fence: PassFence = .always) -> Int {
        guard let storage else { return 0 }
        var finished: [String] = []
        defer {
            if !finished.isEmpty {
                replacedDeleted.add(finished.count, ordering: .relaxed)
                objectsDeleted.add(finished.count, ordering: .relaxed)
                events(.replacedObjectsDeleted(objectsDeleted: finished.count))
            }
        }
        var deleted: [String] = []
        var failure: (any Error)?
        do {
            let keys = try store.pendingObjectDeletions(limit: batchSize)
            for key in keys {
                guard fence.holds else { break }
                try storage.delete(key: key)
                deleted.append(key)
            }
        } catch {
            failure = error
        }
        if !deleted.isEmpty {
            do {
                let written = try fence.write(
                    to: store,
                    { (writes) throws(RecordsError) -> Bool in
                        try writes.finishObjectDeletions(deleted)
                        return true
                    })
                if written == true { finished = deleted }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure {
            failedSweeps.add(1, ordering: .relaxed)
            events(.replacedPassStopped(error: "\(failure)"))
        }
        return finished.count
    }

    /// Deletes what `intent` may have left in storage: its permanent-key object always, its upload
    /// when `deleteObjects`, while `renewer` keeps the claim. Returns how many DELETEs were sent, or nil
    /// when the claim was found taken over before one (nothing more is deleted under it).
    private func deleteObjects(of intent: UploadIntent, under renewer: ClaimRenewer?) throws -> Int? {
        guard let storage else { return 0 }
        var count = 0
        let keys = [intent.permanentKey, deleteObjects ? intent.objectKey : nil].compactMap { $0 }
        for key in keys {
            if renewer?.lost == true {
                objectsDeleted.add(count, ordering: .relaxed)
                return nil
            }
            try storage.delete(key: key)
            count += 1
        }
        objectsDeleted.add(count, ordering: .relaxed)
        return count
    }
}
