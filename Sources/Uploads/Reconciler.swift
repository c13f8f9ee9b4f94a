import ObjectStore
import Records
import Synchronization

/// Records uploads whose store event was lost: a bounded, paged sweep (ListObjectsV2) of the upload
/// prefixes that confirms each object with a live intent and no record through the same claims as
/// `POST /images` and the event path (claimant `reconciler`; the owner is the intent's), so a racing
/// confirmation or event still yields one record.
///
/// It touches only keys this server issued: an object no intent names is left alone, whoever put it
/// there. An object whose intent the janitor settled (its claim `expired`) is the janitor's policy's:
/// deleted when `records.deleteUnconfirmedObjects` is set, else left to the bucket's lifecycle rule.
/// Objects younger than `minAgeMs` are skipped (their client's own confirmation or event usually comes
/// first). Each pass reads at most `maxPages` pages of 1,000 keys, then stops; the next pass goes on from
/// where it stopped, and after the last page starts again from the first prefix.
public final class Reconciler: @unchecked Sendable {
    private let storage: any ObjectStorage & ObjectListing
    private let store: any LifecycleStore
    private let confirmer: Confirmer
    /// The prefixes swept (minimal: none under another).
    public let prefixes: [String]
    /// How often the janitor's thread runs a pass.
    public let intervalMs: Int
    private let minAgeMs: Int64
    private let maxPages: Int
    private let pageSize: Int
    private let deleteOrphans: Bool
    private let env: UploadEnvironment
    private let events: LifecycleLog
    /// Where the next pass starts: a prefix's index and its continuation token. Only the janitor's thread
    /// runs passes.
    private var position: (prefix: Int, token: String?) = (0, nil)

    /// Passes run.
    public let passes = Atomic<Int>(0)
    /// Objects listed.
    public let examined = Atomic<Int>(0)
    /// Uploads recorded by a pass (their events were lost).
    public let recorded = Atomic<Int>(0)
    /// Objects of settled intents deleted (`deleteOrphans`).
    public let removed = Atomic<Int>(0)
    /// Objects refused as `POST /images` refuses them (too large, wrong type or content; deleted).
    public let refused = Atomic<Int>(0)

    /// A reconciler of `prefixes` (made minimal), every `intervalMs`.
    public init(
        storage: any ObjectStorage & ObjectListing, store: any LifecycleStore, confirmer: Confirmer,
        prefixes: [String], intervalMs: Int, minAgeMs: Int64, maxPages: Int, pageSize: Int = 1000,
        deleteOrphans: Bool, env: UploadEnvironment, events: @escaping LifecycleLog
    ) {
        self.storage = storage
        self.store = store
        self.confirmer = confirmer
        self.prefixes = UploadPrefixes.minimal(prefixes)
        self.intervalMs = intervalMs
        self.minAgeMs = minAgeMs
        self.maxPages = max(1, maxPages)
        self.pageSize = min(max(1, pageSize), 1000)
        self.deleteOrphans = deleteOrphans
        self.env = env
        self.events = events
    }

    /// One pass: at most `maxPages` pages, stopping early when `fence` no longer holds.
    public func pass(fence: PassFence = .always) {
        var listed = 0
        var made = 0
        var deleted = 0
        defer {
            passes.add(1, ordering: .relaxed)
            examined.add(listed, ordering: .relaxed)
            recorded.add(made, ordering: .relaxed)
            removed.add(deleted, ordering: .relaxed)
            if made > 0 || deleted > 0 || listed > 0 {
                events(.reconciled(examined: listed, recorded: made, removed: deleted))
            }
        }
        guard !prefixes.isEmpty else { return }
        do {
            for _ in 0..<maxPages {
                guard fence.holds else { return }
                if position.prefix >= prefixes.count { position = (0, nil) }
                let page = try storage.listObjects(
                    prefix: prefixes[position.prefix], continuationToken: position.token, maxKeys: pageSize)
                let cutoffSeconds = (env.nowMillis() - minAgeMs) / 1000
                for object in page.objects where object.lastModified < cutoffSeconds {
                    guard fence.holds else { return }
                    listed += 1
                    switch try settle(object.key) {
                    case .recorded: made += 1
                    case .removed: deleted += 1
                    case .left: break
                    }
                }
                if let next = page.nextContinuationToken {
                    position.token = next
                } else {
                    position = (position.prefix + 1, nil)
                    if position.prefix >= prefixes.count {
                        position = (0, nil)
                        return
                    }
                }
            }
        } catch {
            position = (0, nil)
            events(.reconcilePassStopped(error: "\(error)"))
        }
    }

    /// What a pass did with one object.
    enum Settled {
        case recorded, removed, left
    }

    /// Settles the object at `key`: recorded when a live intent names it and nothing is recorded yet;
    /// removed when its intent's claim is the janitor's expiry and orphans go; else left.
    func settle(_ key: String) throws -> Settled {
        guard let intent = try store.intent(objectKey: key) else {
            // No intent: another client's object, a recorded upload whose intent went, or a janitor's
            // leftover whose claim says so.
            guard deleteOrphans, let claim = try store.claim(imageKey: key), claim.state == .expired,
                try store.record(imageKey: key) == nil
            else { return .left }
            try storage.delete(key: key)
            return .removed
        }
        if try store.record(imageKey: intent.imageKey) != nil { return .left }
        do throws(UploadError) {
            return try confirmer.confirmStored(intent, by: .reconciler).created ? .recorded : .left
        } catch {
            switch error {
            case .imageTooLarge, .contentTypeNotAllowed, .contentMismatch, .checksumMismatch, .sizeMismatch:
                refused.add(1, ordering: .relaxed)
                return .left
            case .intentExpired, .confirmationInProgress, .imageNotUploaded:
                // The janitor's, another claimant's, or gone since it was listed.
                return .left
            default:
                throw error
            }
        }
    }
}
