import ObjectStore
import Records
import SigV4

/// The native multipart API for apps (`POST /uploads` and its routes): an upload of a declared size cut
/// into parts whose URLs are all signed at once, each living `urlSeconds` (clamped to the signing
/// credentials), so a background session can create every part task together; its state from the
/// ledger and storage's ListParts; completion by the client or by the server (`autoComplete`), through
/// `MultipartUploads.complete`, so its record is made exactly as a Companion completion's (claim,
/// content check, checksum, promotion, quota, `upload.completed`).
///
/// An upload is its owner's: any other caller, like an id never issued, hears `.noSuchUpload`.
public final class NativeUploads: Sendable {
    let multipart: MultipartUploads
    let ledger: any MultipartLedger
    /// The lifetime asked for each part URL, in seconds (the credentials' remaining life when shorter).
    public let urlSeconds: Int
    /// The most parts an upload may have.
    public let maxParts: Int
    /// How long after its last part the server completes an upload storage holds whole.
    let autoCompleteAfterMs: Int64
    /// How often one upload is looked at by `autoComplete`.
    let checkEveryMs: Int64

    /// One signed part.
    public struct SignedPart: Sendable, Equatable {
        /// Its number.
        public var partNumber: Int
        /// Its presigned UploadPart URL.
        public var url: String
        /// The bytes it must carry.
        public var size: Int64
    }

    /// Signed parts and when the first of them expires (epoch seconds).
    public struct Signed: Sendable {
        /// The parts, in the order asked.
        public var parts: [SignedPart]
        /// When the earliest URL expires.
        public var expiresAt: Int64
    }

    /// A new upload: its entry and every part signed.
    public struct Created: Sendable {
        /// The upload.
        public var entry: NativeUploadEntry
        /// Every part.
        public var signed: Signed
    }

    /// The native API over `multipart`'s uploads and `ledger`.
    public init(
        multipart: MultipartUploads, ledger: any MultipartLedger, urlSeconds: Int, maxParts: Int,
        autoCompleteAfterSeconds: Int, checkEverySeconds: Int = 5
    ) {
        self.multipart = multipart
        self.ledger = ledger
        self.urlSeconds = urlSeconds
        self.maxParts = maxParts
        self.autoCompleteAfterMs = Int64(autoCompleteAfterSeconds) * 1000
        self.checkEveryMs = Int64(max(1, checkEverySeconds)) * 1000
    }

    /// On a worker: the upload of `object` (`size` bytes, declared on it) created and stored in the
    /// ledger, every part signed. `partSize` was planned by `PartPlan`.
    public func create(_ object: PlannedObject, size: Int64, partSize: Int64, owner: String) throws(UploadError)
        -> Created
    {
        let ref = try multipart.create(object, owner: owner)
        let entry = NativeUploadEntry(
            uploadId: ref.uploadId, objectKey: ref.key, ownerId: owner, size: size, partSize: partSize,
            createdAtMs: multipart.env.nowMillis())
        do {
            try UploadError.storing { () throws(RecordsError) in try ledger.putNativeUpload(entry) }
        } catch {
            // The ledger row of the multipart upload stays: the janitor's abort finds nothing.
            try? multipart.storage.abortMultipartUpload(key: ref.key, uploadId: ref.uploadId)
            throw error
        }
        return Created(entry: entry, signed: try sign(entry, numbers: Array(1...entry.partCount)))
    }

    /// On a worker: `owner`'s upload `uploadId`, else `.noSuchUpload`.
    public func entry(_ uploadId: String, owner: String) throws(UploadError) -> NativeUploadEntry {
        let found = try UploadError.storing { () throws(RecordsError) in try ledger.nativeUpload(uploadId: uploadId) }
        guard let found, found.ownerId == owner else { throw .noSuchUpload }
        return found
    }

    /// The URLs of `numbers` of `entry` (each 1...partCount, checked by the caller).
    func sign(_ entry: NativeUploadEntry, numbers: [Int]) throws(UploadError) -> Signed {
        let issuer = multipart.issuer
        let now = multipart.env.nowMillis() / 1000
        var parts: [SignedPart] = []
        parts.reserveCapacity(numbers.count)
        var expiresAt = Int64.max
        for n in numbers {
            do {
                let url = try issuer.signers.configured.presignUploadPart(
                    bucket: issuer.bucket, key: entry.objectKey, uploadId: entry.uploadId, partNumber: n,
                    expires: urlSeconds, now: now)
                expiresAt = min(expiresAt, url.expiresAt)
                parts.append(SignedPart(partNumber: n, url: url.url, size: entry.partBytes(n)))
            } catch {
                throw Issuer.signingError(error)
            }
        }
        return Signed(parts: parts, expiresAt: expiresAt == .max ? now + Int64(urlSeconds) : expiresAt)
    }

    /// On a worker: fresh URLs of `numbers` (nil: the parts storage does not hold yet) of `owner`'s open
    /// upload. A number outside the upload's parts is `.partNotUploaded`.
    public func sign(_ uploadId: String, numbers: [Int]?, owner: String) throws(UploadError) -> Signed {
        let entry = try entry(uploadId, owner: owner)
        guard entry.state == .uploading else { throw .noSuchUpload }
        let wanted: [Int]
        if let numbers {
            for n in numbers where n < 1 || n > entry.partCount { throw .partNotUploaded(partNumber: n) }
            wanted = numbers
        } else {
            wanted = NativeUploadStatus.uploading(entry, listed: try listed(entry)).missingParts
        }
        return try sign(entry, numbers: wanted)
    }

    /// Storage's parts of `entry` by number, with their sizes.
    func listed(_ entry: NativeUploadEntry) throws(UploadError) -> [Int: Int64] {
        try parts(entry).reduce(into: [:]) { $0[$1.partNumber] = $1.size }
    }

    /// Storage's parts of `entry` (every page); an upload storage no longer knows is `.noSuchUpload`.
    func parts(_ entry: NativeUploadEntry) throws(UploadError) -> [UploadedPart] {
        do throws(ObjectStoreError) {
            return try multipart.storage.listParts(key: entry.objectKey, uploadId: entry.uploadId)
        } catch .multipart(.noSuchUpload) {
            throw .noSuchUpload
        } catch {
            throw .storage(error)
        }
    }

    /// On a worker: where `owner`'s upload is. One that storage no longer knows and that was never
    /// recorded is `.noSuchUpload` (its client starts a new one).
    public func status(_ uploadId: String, owner: String) throws(UploadError) -> NativeUploadStatus {
        let entry = try entry(uploadId, owner: owner)
        let ref = UploadRef(uploadId: entry.uploadId, key: entry.objectKey)
        var status = NativeUploadStatus(
            state: entry.state.rawValue, entry: entry, receivedBytes: 0, contiguousBytes: 0, missingParts: [],
            record: nil, reason: entry.reason)
        switch entry.state {
        case .aborted, .expired: return status
        case .completed:
            status.record = try recorded(ref)
            status.receivedBytes = entry.size
            status.contiguousBytes = entry.size
            return status
        case .uploading: break
        }
        if let record = try recorded(ref) {
            status.state = NativeUploadEntry.State.completed.rawValue
            status.record = record
            status.receivedBytes = entry.size
            status.contiguousBytes = entry.size
            return status
        }
        let intent = try multipart.intents.intent(imageKey: ref.pairKey)
        guard let intent, intent.expiresAtMs > multipart.env.nowMillis() else {
            status.state = "expired"
            return status
        }
        let listed: [Int: Int64]
        do throws(UploadError) {
            listed = try self.listed(entry)
        } catch .noSuchUpload {
            // Completed in storage by a server that stopped before its record, or aborted: the
            // completion's proof tells which (and records it), as the client's next call would.
            let done = try complete(uploadId, owner: owner)
            status.state = NativeUploadEntry.State.completed.rawValue
            status.record = done.record
            status.receivedBytes = entry.size
            status.contiguousBytes = entry.size
            return status
        }
        return NativeUploadStatus.uploading(entry, listed: listed)
    }

    /// The record of `ref`, if one was made.
    func recorded(_ ref: UploadRef) throws(UploadError) -> ImageRecord? {
        if case .record(let r) = try multipart.ownership.holder(of: ref.pairKey) { return r }
        return nil
    }

    /// On a worker: `owner`'s upload completed and recorded (a completed one answers its record again).
    /// Every part must be in storage at its signed size: a part over it, or parts over the declared size,
    /// abort the upload (`reason` says why; its client starts a new one); a part missing or short is
    /// refused and the upload stays open.
    public func complete(_ uploadId: String, owner: String) throws(UploadError) -> CompletedMultipart {
        let entry = try entry(uploadId, owner: owner)
        let ref = UploadRef(uploadId: entry.uploadId, key: entry.objectKey)
        if let record = try recorded(ref) {
            try settle(entry, .completed, reason: nil, recordId: record.id)
            return CompletedMultipart(record: record, location: nil)
        }
        guard entry.state == .uploading else { throw .noSuchUpload }
        return try completeRecorded(entry, ref: ref, owner: owner)
    }

    /// The parts to complete `entry` with from `listed`, or the refusal (aborting on a part over its
    /// signed size or a total over the declared size).
    func checked(_ entry: NativeUploadEntry, listed: [UploadedPart]) throws(UploadError) -> [PartRules.Part] {
        var byNumber: [Int: UploadedPart] = [:]
        var total: Int64 = 0
        for p in listed {
            byNumber[p.partNumber] = p
            total += p.size
        }
        for p in listed
        where p.partNumber < 1 || p.partNumber > entry.partCount || p.size > entry.partBytes(p.partNumber) {
            let why =
                "part \(p.partNumber) holds \(p.size) bytes, over the \(entry.partBytes(p.partNumber)) it was signed for"
            try abortRefused(entry, reason: why)
            throw .partsSizeMismatch(size: total, declared: entry.size)
        }
        if total > entry.size {
            try abortRefused(entry, reason: "the parts hold \(total) bytes, over the declared \(entry.size)")
            throw .partsSizeMismatch(size: total, declared: entry.size)
        }
        var out: [PartRules.Part] = []
        out.reserveCapacity(entry.partCount)
        for n in 1...entry.partCount {
            guard let p = byNumber[n] else { throw .partNotUploaded(partNumber: n) }
            guard p.size == entry.partBytes(n) else { throw .partsSizeMismatch(size: total, declared: entry.size) }
            out.append(PartRules.Part(number: n, etag: p.etag))
        }
        return out
    }

    /// Completes through the Companion path, the parts checked against storage's ListParts under the
    /// completion's claim (a completion racing another waits for its record; storage that no longer
    /// lists the upload is the Companion path's proof of an earlier completion), and settles the ledger:
    /// completed with its record, or aborted when the parts or the record were refused.
    func completeRecorded(_ entry: NativeUploadEntry, ref: UploadRef, owner: String) throws(UploadError)
        -> CompletedMultipart
    {
        do {
            let done = try multipart.complete(ref, owner: owner) { (listed) throws(UploadError) in
                try checked(entry, listed: listed)
            }
            try settle(entry, .completed, reason: nil, recordId: done.record.id)
            return done
        } catch {
            switch error {
            case .imageTooLarge, .contentTypeNotAllowed, .contentMismatch, .checksumMismatch, .sizeMismatch,
                .uploadTooLarge, .partTooLarge:
                // Refused for good (a part short of its size is not: it may be sent again).
                try abortRefused(entry, reason: Self.reason(error))
            case .noSuchUpload:
                try settle(entry, .aborted, reason: "storage no longer holds the upload", recordId: nil)
            default: break
            }
            throw error
        }
    }

    /// A refused upload aborted in storage and settled with `reason`.
    func abortRefused(_ entry: NativeUploadEntry, reason: String) throws(UploadError) {
        try abortInStorage(entry)
        try settle(entry, .aborted, reason: reason, recordId: nil)
    }

    /// AbortMultipartUpload; `NoSuchUpload` is done.
    func abortInStorage(_ entry: NativeUploadEntry) throws(UploadError) {
        multipart.owners.forget(UploadRef(uploadId: entry.uploadId, key: entry.objectKey))
        do throws(ObjectStoreError) {
            try multipart.storage.abortMultipartUpload(key: entry.objectKey, uploadId: entry.uploadId)
        } catch .multipart(.noSuchUpload) {
            // Gone already.
        } catch {
            throw .storage(error)
        }
    }

    /// The ledger's state of `entry` settled (once: a later settlement is ignored).
    func settle(_ entry: NativeUploadEntry, _ state: NativeUploadEntry.State, reason: String?, recordId: String?)
        throws(UploadError)
    {
        _ = try UploadError.storing { () throws(RecordsError) in
            try ledger.settleNativeUpload(uploadId: entry.uploadId, state: state, reason: reason, recordId: recordId)
        }
    }

    /// On a worker: `owner`'s upload aborted. One already aborted or gone is done; a completed one is
    /// `.keyAlreadyRecorded`.
    public func abort(_ uploadId: String, owner: String) throws(UploadError) {
        let entry = try entry(uploadId, owner: owner)
        switch entry.state {
        case .aborted, .expired: return
        case .completed: throw .keyAlreadyRecorded
        case .uploading:
            if try recorded(UploadRef(uploadId: entry.uploadId, key: entry.objectKey)) != nil {
                throw .keyAlreadyRecorded
            }
            try abortRefused(entry, reason: "aborted by its owner")
        }
    }

    /// Why a completion was refused, in words.
    static func reason(_ error: UploadError) -> String {
        switch error {
        case .imageTooLarge(let size, let limit, let type, _): return "\(size) bytes is over \(type)'s \(limit)"
        case .contentTypeNotAllowed(let stored, let type, _): return "\(stored ?? "no type") is not allowed for \(type)"
        case .contentMismatch: return "the content is not what its type allows"
        case .checksumMismatch: return "the content does not match its declared checksum"
        case .sizeMismatch(let size, let declared), .partsSizeMismatch(let size, let declared):
            return "the parts hold \(size) bytes, not the declared \(declared)"
        case .uploadTooLarge(let size, let limit, let type): return "\(size) bytes is over \(type)'s \(limit)"
        case .partTooLarge(let n): return "part \(n) is over 5 GiB"
        default: return "\(error)"
        }
    }
}
