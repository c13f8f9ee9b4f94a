import Config
import ObjectStore
import Records
import Synchronization
import System

/// Aborts multipart uploads this server created and nobody completed: the ledger's uploads
/// (`MultipartLedger`, written when `POST /s3/multipart` created them) begun more than
/// `uppy.abortAfterSeconds` ago. Uploads another client made in the same bucket are never in the ledger,
/// so they are never touched (uploads created before schema version 7 are not in it either: an
/// `AbortIncompleteMultipartUpload` lifecycle rule covers them).
///
/// Each upload's intent (its pair key `key#uploadId`) is claimed first, as the intent janitor claims: a
/// completion holding it is left for the next run; a won claim is aborted (`NoSuchUpload` counts as
/// done: completed or aborted since) and settled `expired`; an upload whose key was recorded, or whose
/// claim is settled, is aborted idempotently and leaves the ledger (through the run's fence: under the
/// janitor's lease, fenced by its token). Bounded per run: at most `maxAborts` aborts. Called from the janitor's loop; aborts are counted (`aborts`) and reported.
public final class MultipartJanitor: Sendable {
    let storage: any MultipartStorage
    let store: any LifecycleStore
    private let abortAfterMs: Int64
    private let maxAborts: Int
    private let pageSize: Int
    private let claimLeaseMs: Int64
    private let env: UploadEnvironment
    private let events: LifecycleLog
    /// The `upload.expired` event of an upload aborted under a won claim, written as the claim is settled.
    private let webhooks: WebhookEvents
    /// Uploads aborted (`presignd_multipart_aborted_total`).
    public let aborts = Atomic<Int>(0)
    /// Uploads left for the next run because a completion held their claim.
    public let held = Atomic<Int>(0)

    /// A janitor of the ledger's uploads older than `abortAfterSeconds`.
    public init(
        storage: any MultipartStorage, store: any LifecycleStore, abortAfterSeconds: Int, maxAborts: Int,
        pageSize: Int = 100, claimLeaseMs: Int64 = 60_000, env: UploadEnvironment, events: @escaping LifecycleLog,
        webhooks: WebhookEvents = .off
    ) {
        self.storage = storage
        self.store = store
        self.abortAfterMs = Int64(abortAfterSeconds) * 1000
        self.maxAborts = maxAborts
        self.pageSize = max(1, pageSize)
        self.claimLeaseMs = claimLeaseMs
        self.env = env
        self.events = events
        self.webhooks = webhooks
    }

    /// One run: how many uploads were aborted. A failure ends the run (reported); the next run retries.
    @discardableResult
    public func sweep(fence: PassFence = .always) -> Int {
        let cutoff = env.nowMillis() - abortAfterMs
        var aborted = 0
        // Started at the first won claim: keeps each claim alive while its abort runs.
        var renewer: ClaimRenewer?
        defer {
            renewer?.stop()
            if aborted > 0 {
                aborts.add(aborted, ordering: .relaxed)
                events(.multipartAborted(count: aborted))
            }
        }
        do {
            aborted += try sweepCreations(cutoffMs: cutoff, limit: maxAborts, fence: fence)
            while aborted < maxAborts && fence.holds {
                let due = try store.multipartUploads(createdBeforeMs: cutoff, limit: min(pageSize, maxAborts - aborted))
                if due.isEmpty { return aborted }
                var finished: [(objectKey: String, uploadId: String)] = []
                // The ledger's rows of the uploads settled, in one write through the fence: refused (the
                // lease lost), the fence no longer holds and the run ends; the next holder aborts them
                // again (idempotent) and removes them.
                defer {
                    if !finished.isEmpty {
                        _ = try? fence.write(
                            to: store,
                            { [finished] (writes) throws(RecordsError) in try writes.removeMultipartUploads(finished) })
                    }
                }
                for upload in due {
                    guard fence.holds else { break }
                    let token = env.newUUID()
                    let outcome = try store.claimIntent(
                        ClaimRequest(
                            imageKey: upload.imageKey, intentCreatedAtMs: upload.createdAtMs, claimant: .janitor,
                            token: token, nowMs: env.nowMillis(), leaseMs: claimLeaseMs))
                    switch outcome {
                    case .held:
                        held.add(1, ordering: .relaxed)
                        continue
                    case .recorded:
                        finished.append((upload.objectKey, upload.uploadId))
                        continue
                    case .won, .finished:
                        if case .won = outcome {
                            if renewer == nil {
                                renewer = ClaimRenewer(store: store, leaseMs: claimLeaseMs, env: env)
                                renewer?.start()
                            }
                            renewer?.hold(upload.imageKey, token: token)
                        }
                        defer { renewer?.letGo() }
                        do {
                            try abort(upload)
                        } catch {
                            if case .won = outcome {
                                _ = try? store.releaseClaim(imageKey: upload.imageKey, token: token)
                            }
                            throw error
                        }
                        aborted += 1
                        if case .won = outcome {
                            // Its parts are gone: `upload.expired` of its intent (still stored: the intent
                            // janitor removes it later, finding the claim settled).
                            let intent = webhooks.isOn ? try store.intent(imageKey: upload.imageKey) : nil
                            _ = try store.expireClaim(
                                imageKey: upload.imageKey, token: token, reason: "aborted", nowMs: env.nowMillis(),
                                events: intent.map { webhooks.expired($0, objectDeleted: true) } ?? [])
                        }
                        finished.append((upload.objectKey, upload.uploadId))
                    }
                }
                if finished.isEmpty { return aborted }
            }
        } catch {
            events(.multipartPassStopped(error: "\(error)"))
        }
        return aborted
    }

    /// AbortMultipartUpload of `upload`; `NoSuchUpload` is done (completed or aborted since).
    private func abort(_ upload: MultipartUploadEntry) throws(ObjectStoreError) {
        do {
            try storage.abortMultipartUpload(key: upload.objectKey, uploadId: upload.uploadId)
        } catch .multipart(.noSuchUpload) {
            // Gone already.
        }
    }
}
