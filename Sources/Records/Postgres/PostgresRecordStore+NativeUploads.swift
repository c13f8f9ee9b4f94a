extension PostgresRecordStore {
    private var nq: NativeUploadQueries { NativeUploadQueries.postgres }

    /// `MultipartLedger.noteCreation`.
    public func noteCreation(objectKey: String, ownerId: String, nowMs: Int64) throws(RecordsError) {
        _ = try nativeChange(nq.noteCreation, [.text(objectKey), .text(ownerId), .int(nowMs)])
    }

    /// `MultipartLedger.forgetCreation`.
    public func forgetCreation(objectKey: String) throws(RecordsError) {
        _ = try nativeChange(nq.forgetCreation, [.text(objectKey)])
    }

    /// `MultipartLedger.notedCreations`.
    public func notedCreations(notedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [NotedCreation] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(nq.creations, [.int(beforeMs), .int(Int64(limit))])
            return try (0..<rows.rowCount).map { (r) throws(RecordsError) in
                NotedCreation(objectKey: rows.text(r, 0), ownerId: rows.text(r, 1), notedAtMs: try rows.int64(r, 2))
            }
        }
    }

    /// `MultipartLedger.putNativeUpload`.
    public func putNativeUpload(_ upload: NativeUploadEntry) throws(RecordsError) {
        _ = try nativeChange(nq.insert, NativeUploadQueries.values(of: upload))
    }

    /// `MultipartLedger.nativeUpload`.
    public func nativeUpload(uploadId: String) throws(RecordsError) -> NativeUploadEntry? {
        try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(nq.byId, [.text(uploadId)])
            return rows.rowCount == 0 ? nil : try Self.nativeUpload(rows, 0)
        }
    }

    /// `MultipartLedger.settleNativeUpload`.
    public func settleNativeUpload(
        uploadId: String, state: NativeUploadEntry.State, reason: String?, recordId: String?
    ) throws(RecordsError) -> Bool {
        try nativeChange(
            nq.settle, [.text(uploadId), .text(state.rawValue), .optionalText(reason), .optionalText(recordId)]) == 1
    }

    /// `MultipartLedger.openNativeUploads`.
    public func openNativeUploads(checkedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [NativeUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(nq.open, [.int(beforeMs), .int(Int64(limit))])
            return try (0..<rows.rowCount).map { (r) throws(RecordsError) in try Self.nativeUpload(rows, r) }
        }
    }

    /// `MultipartLedger.markNativeUploadChecked`.
    public func markNativeUploadChecked(uploadId: String, nowMs: Int64) throws(RecordsError) {
        _ = try nativeChange(nq.checked, [.text(uploadId), .int(nowMs)])
    }

    /// Runs one prepared write statement on its own; the rows it changed.
    private func nativeChange(_ sql: String, _ values: [SQLValue]) throws(RecordsError) -> Int {
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(sql, values).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return changed
    }

    /// A native upload from row `r` in `NativeUploadQueries.columns` order.
    private static func nativeUpload(_ rows: PostgresResult, _ r: Int) throws(RecordsError) -> NativeUploadEntry {
        NativeUploadEntry(
            uploadId: rows.text(r, 0), objectKey: rows.text(r, 1), ownerId: rows.text(r, 2), size: try rows.int64(r, 3),
            partSize: try rows.int64(r, 4), createdAtMs: try rows.int64(r, 5),
            state: try NativeUploadQueries.state(rows.text(r, 6)), reason: rows.optionalText(r, 7),
            recordId: rows.optionalText(r, 8), checkedAtMs: try rows.int64(r, 9))
    }
}
