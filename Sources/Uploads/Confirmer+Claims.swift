import ObjectStore
import Records

extension Confirmer {
    /// How a claim on an intent ended for the one who asked.
    enum ClaimResult: Equatable {
        /// The caller holds the claim: it may move the intent's objects and record.
        case won
        /// The key is recorded: this record.
        case recorded(ImageRecord)
        /// The key was settled by this record of its owner with the same bytes (`types.<T>.dedup`).
        case deduplicated(ImageRecord)
    }

    /// The reason a claim settled by another key's record carries (`RecordDigests.settleDeduplicated`).
    static let deduplicatedReason = "deduplicated"

    /// On a worker: the record of `intent`'s upload, made under a claim of `claimant` (`token`: one the
    /// caller holds already, else a new one): the claim taken (or the winner's outcome, waiting up to
    /// `waitMs` while another claimant holds it), the object verified and promoted, then the record
    /// committed with the claim settled in one durable transaction (the group committer). A failure after
    /// the claim was won gives it back (nothing recorded; another claimant settles idempotently, looking
    /// at the upload key and the permanent key). A claim lost meanwhile (its lease ran out and another
    /// claimant took over) answers from the new holder's outcome.
    func record(
        _ intent: UploadIntent, metadataJSON: String, as claimant: ClaimRequest.Claimant, token: String?,
        waitMs: Int
    ) throws(UploadError) -> Confirmed {
        let token = token ?? env.newUUID()
        var rounds = 0
        while true {
            rounds += 1
            switch try claim(intent, as: claimant, token: token, waitMs: waitMs) {
            case .won: break
            case .recorded(let r): return Confirmed(record: r, created: false)
            case .deduplicated(let r): return Confirmed(record: r, created: false, deduplicated: true)
            }
            defer { letGo(intent.imageKey, token: token) }
            let finish: ClaimFinish
            var duplicate: ImageRecord?
            do throws(UploadError) {
                var object: VerifiedObject?
                if let storage { object = try verifiedObject(intent, in: storage) }
                if let object, let existing = object.duplicate {
                    // The owner has these bytes recorded: answer that record, keep nothing of this upload
                    // (no new record, so no `upload.completed`).
                    if try settleDuplicate(intent, object: object, existing: existing, token: token) {
                        duplicate = existing
                    }
                    finish = .fenced(nil)
                } else {
                    let record = newRecord(intent, object, metadataJSON: metadataJSON)
                    finish = try UploadError.storing { () throws(RecordsError) in
                        // `upload.completed` goes in with the record; a `scanning` record's goes in with its
                        // publication instead (`ScanWorker`), so the receiver hears of it only after its scan.
                        try committer.insertClaimed(
                            record, token: token, nowMs: env.nowMillis(),
                            events: record.state == .scanning ? [] : webhooks.completed(record))
                    }
                }
            } catch {
                release(intent.imageKey, token: token)
                throw error
            }
            if let duplicate { return Confirmed(record: duplicate, created: false, deduplicated: true) }
            switch finish {
            case .recorded(let r): return Confirmed(record: r, created: true)
            case .existing(let r): return Confirmed(record: r, created: false)
            case .fenced:
                // Taken over: the new holder settles what this one moved; answer from its outcome.
                guard rounds < 3 else {
                    claimsBusy.wrappingAdd(1, ordering: .relaxed)
                    throw .confirmationInProgress(retryAfterSeconds: 1)
                }
            }
        }
    }

    /// On a worker: claims `intent` for `claimant` under `token`. A live claim of another token is waited
    /// on, reading the record and the claim with growing pauses (5 ms to 100 ms) for up to `waitMs`, until
    /// the holder settles (`.recorded`, `.deduplicated`, or the janitor's expiry), gives the claim back or
    /// lets its lease run out (then it is claimed again). Throws `.intentExpired` when the janitor settled the intent,
    /// `.imageNotUploaded` when its record was deleted since (so was the object), and
    /// `.confirmationInProgress` when the claim is still held after the wait.
    func claim(_ intent: UploadIntent, as claimant: ClaimRequest.Claimant, token: String, waitMs: Int)
        throws(UploadError) -> ClaimResult
    {
        var waited = 0
        var pause = 5
        var counted = false
        while true {
            let request = ClaimRequest(
                imageKey: intent.imageKey, intentCreatedAtMs: intent.createdAtMs, claimant: claimant, token: token,
                nowMs: env.nowMillis(), leaseMs: claimLeaseMs)
            let outcome: ClaimOutcome
            do throws(RecordsError) {
                outcome = try store.claimIntent(request)
            } catch {
                // The claim may have committed with its answer lost: this token may hold it.
                abandon(intent.imageKey, token: token)
                throw .store(error)
            }
            switch outcome {
            case .won:
                hold(intent.imageKey, token: token)
                return .won
            case .recorded(let r): return .recorded(r)
            case .finished(let settled):
                if let existing = try deduplicatedRecord(settled, owner: intent.ownerId) {
                    return .deduplicated(existing)
                }
                throw settled.state == .expired ? .intentExpired : .imageNotUploaded(expiredAtMs: nil)
            case .held(let holder) where holder.token != token && reclaim(intent.imageKey, token: holder.token):
                continue
            case .held(let holder):
                if !counted && waitMs > 0 {
                    claimWaits.wrappingAdd(1, ordering: .relaxed)
                    counted = true
                }
                // Reads only while it stays held: a claim is a write transaction, a look is not.
                while true {
                    guard waited < waitMs else {
                        claimsBusy.wrappingAdd(1, ordering: .relaxed)
                        throw .confirmationInProgress(retryAfterSeconds: 1)
                    }
                    pauses.withLock { _ = pauses.wait(millis: pause) }
                    waited += pause
                    pause = min(pause * 2, 100)
                    let (record, current) = try UploadError.storing {
                        () throws(RecordsError) -> (ImageRecord?, IntentClaim?) in
                        (try store.record(imageKey: intent.imageKey), try store.claim(imageKey: intent.imageKey))
                    }
                    if let record { return .recorded(record) }
                    guard let current, current.state == .claimed, current.token == holder.token,
                        current.leaseUntilMs > env.nowMillis()
                    else { break }
                }
            }
        }
    }

    /// Gives the claim `token` holds on `imageKey` back (a step failed; nothing is recorded). A failure to
    /// give it back leaves it to run out.
    func release(_ imageKey: String, token: String) {
        letGo(imageKey, token: token)
        do throws(RecordsError) {
            _ = try store.releaseClaim(imageKey: imageKey, token: token)
        } catch {
            abandon(imageKey, token: token)
        }
    }

    /// Notes a claim of this process that no step holds any more and that could not be given back.
    func abandon(_ imageKey: String, token: String) {
        abandoned.withLock { claims in
            // Bounded: past the bound, the oldest notes' claims just run out their lease.
            if claims.count >= 10_000 { claims.removeAll() }
            claims[imageKey] = token
        }
    }

    /// Gives back a claim on `imageKey` held by `token` when it is one this process abandoned: true when
    /// given back (the key may be claimed again at once).
    func reclaim(_ imageKey: String, token: String) -> Bool {
        guard abandoned.withLock({ $0[imageKey] == token }) else { return false }
        do throws(RecordsError) {
            _ = try store.releaseClaim(imageKey: imageKey, token: token)
        } catch {
            return false
        }
        abandoned.withLock { claims in
            if claims[imageKey] == token { claims[imageKey] = nil }
        }
        return true
    }
}
