import ObjectStore
import Records

extension NativeUploads {
    /// One pass of the server's own completions, run under the janitor's lease: at most `limit` open
    /// uploads not looked at for `checkEveryMs` are looked at (ListParts each). One whose parts are all in
    /// storage at their signed sizes, the last of them sent `autoCompleteAfterMs` ago, is completed as its
    /// client would complete it (the claim makes it once, whoever else completes it at the same time);
    /// one with a part over its signed size or more bytes than declared is aborted with its reason. Each
    /// failure of one upload is reported to `failed` and the pass goes on. The uploads completed.
    @discardableResult
    public func autoComplete(
        limit: Int, fence: PassFence = .always, failed: (String, UploadError) -> Void = { _, _ in }
    )
        -> Int
    {
        let now = multipart.env.nowMillis()
        let due: [NativeUploadEntry]
        do {
            due = try ledger.openNativeUploads(checkedBeforeMs: now - checkEveryMs, limit: max(1, min(limit, 1000)))
        } catch {
            failed("", .store(error))
            return 0
        }
        var completed = 0
        for entry in due {
            guard fence.holds else { break }
            do throws(UploadError) {
                if try autoCompleteOne(entry, nowMs: now) { completed += 1 }
            } catch {
                failed(entry.uploadId, error)
            }
        }
        return completed
    }

    /// Looks at one open upload: true when it was completed now.
    func autoCompleteOne(_ entry: NativeUploadEntry, nowMs: Int64) throws(UploadError) -> Bool {
        _ = try UploadError.storing { () throws(RecordsError) in
            try ledger.markNativeUploadChecked(uploadId: entry.uploadId, nowMs: nowMs)
        }
        let ref = UploadRef(uploadId: entry.uploadId, key: entry.objectKey)
        let intent = try multipart.intents.intent(imageKey: ref.pairKey)
        // Expired: the multipart janitor aborts it in storage; the ledger says so and stops looking.
        guard let intent, intent.expiresAtMs > nowMs else {
            try settle(entry, .expired, reason: "not completed within its lifetime", recordId: nil)
            return false
        }
        let listed: [UploadedPart]
        do throws(UploadError) {
            listed = try parts(entry)
        } catch .noSuchUpload {
            // Completed in storage before a crash, or aborted: the completion's proof tells which.
            _ = try complete(entry.uploadId, owner: entry.ownerId)
            return true
        }
        let total = listed.reduce(Int64(0)) { $0 + $1.size }
        let over = listed.contains { $0.partNumber > entry.partCount || $0.size > entry.partBytes($0.partNumber) }
        if over || total > entry.size {
            _ = try checked(entry, listed: listed)
            return false
        }
        guard total == entry.size, listed.count == entry.partCount else { return false }
        let last = listed.map(\.lastModified).max() ?? 0
        guard last * 1000 + autoCompleteAfterMs <= nowMs else { return false }
        _ = try complete(entry.uploadId, owner: entry.ownerId)
        return true
    }
}
