import Records

extension InMemoryRecordStore {
    /// `MultipartLedger.noteCreation`.
    public func noteCreation(objectKey: String, ownerId: String, nowMs: Int64) throws(RecordsError) {
        state.withLock {
            $0.creations[objectKey] = NotedCreation(objectKey: objectKey, ownerId: ownerId, notedAtMs: nowMs)
        }
    }

    /// `MultipartLedger.forgetCreation`.
    public func forgetCreation(objectKey: String) throws(RecordsError) {
        _ = state.withLock { $0.creations.removeValue(forKey: objectKey) }
    }

    /// `MultipartLedger.notedCreations`.
    public func notedCreations(notedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [NotedCreation] {
        try RecordStoreLimits.checkBatchLimit(limit)
        let all = state.withLock { Array($0.creations.values) }
        return Array(
            all.filter { $0.notedAtMs < beforeMs }.sorted {
                ($0.notedAtMs, $0.objectKey) < ($1.notedAtMs, $1.objectKey)
            }
            .prefix(limit))
    }

    /// `MultipartLedger.putNativeUpload`.
    public func putNativeUpload(_ upload: NativeUploadEntry) throws(RecordsError) {
        try state.withLock { (state) throws(RecordsError) in
            guard state.nativeUploads[upload.uploadId] == nil else {
                throw .constraint("native upload \(upload.uploadId) exists")
            }
            state.nativeUploads[upload.uploadId] = upload
        }
    }

    /// `MultipartLedger.nativeUpload`.
    public func nativeUpload(uploadId: String) throws(RecordsError) -> NativeUploadEntry? {
        state.withLock { $0.nativeUploads[uploadId] }
    }

    /// `MultipartLedger.settleNativeUpload`.
    public func settleNativeUpload(
        uploadId: String, state settled: NativeUploadEntry.State, reason: String?, recordId: String?
    ) throws(RecordsError) -> Bool {
        state.withLock { state in
            guard let u = state.nativeUploads[uploadId], u.state == .uploading else { return false }
            state.nativeUploads[uploadId]?.state = settled
            state.nativeUploads[uploadId]?.reason = reason
            state.nativeUploads[uploadId]?.recordId = recordId
            return true
        }
    }

    /// `MultipartLedger.openNativeUploads`.
    public func openNativeUploads(checkedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [NativeUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        let all = state.withLock { Array($0.nativeUploads.values) }
        return Array(
            all.filter { $0.state == .uploading && $0.checkedAtMs < beforeMs }.sorted {
                ($0.checkedAtMs, $0.uploadId) < ($1.checkedAtMs, $1.uploadId)
            }.prefix(limit))
    }

    /// `MultipartLedger.markNativeUploadChecked`.
    public func markNativeUploadChecked(uploadId: String, nowMs: Int64) throws(RecordsError) {
        state.withLock { $0.nativeUploads[uploadId]?.checkedAtMs = nowMs }
    }
}
