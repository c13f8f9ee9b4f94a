extension SQLiteRecordStore {
    private var nq: NativeUploadQueries { NativeUploadQueries.sqlite }

    /// `MultipartLedger.noteCreation`, durable.
    public func noteCreation(objectKey: String, ownerId: String, nowMs: Int64) throws(RecordsError) {
        try write { (connection) throws(RecordsError) in
            _ = try connection.run(nq.noteCreation, [.text(objectKey), .text(ownerId), .int(nowMs)])
        }
    }

    /// `MultipartLedger.forgetCreation`.
    public func forgetCreation(objectKey: String) throws(RecordsError) {
        try write(durable: false) { (connection) throws(RecordsError) in
            _ = try connection.run(nq.forgetCreation, [.text(objectKey)])
        }
    }

    /// `MultipartLedger.notedCreations`.
    public func notedCreations(notedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [NotedCreation] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(nq.creations, [.int(beforeMs), .int(Int64(limit))]) { (row) throws(RecordsError) in
                NotedCreation(objectKey: row.text(0), ownerId: row.text(1), notedAtMs: row.int64(2))
            }
        }
    }

    /// `MultipartLedger.putNativeUpload`, durable.
    public func putNativeUpload(_ upload: NativeUploadEntry) throws(RecordsError) {
        try write { (connection) throws(RecordsError) in
            _ = try connection.run(nq.insert, NativeUploadQueries.values(of: upload))
        }
    }

    /// `MultipartLedger.nativeUpload`.
    public func nativeUpload(uploadId: String) throws(RecordsError) -> NativeUploadEntry? {
        try read { (connection) throws(RecordsError) in
            try connection.query(nq.byId, [.text(uploadId)], row: Self.nativeUpload(from:)).first
        }
    }

    /// `MultipartLedger.settleNativeUpload`, durable.
    public func settleNativeUpload(
        uploadId: String, state: NativeUploadEntry.State, reason: String?, recordId: String?
    ) throws(RecordsError) -> Bool {
        try write { (connection) throws(RecordsError) -> Bool in
            try connection.run(
                nq.settle, [.text(uploadId), .text(state.rawValue), .optionalText(reason), .optionalText(recordId)])
                == 1
        }
    }

    /// `MultipartLedger.openNativeUploads`.
    public func openNativeUploads(checkedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [NativeUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(nq.open, [.int(beforeMs), .int(Int64(limit))], row: Self.nativeUpload(from:))
        }
    }

    /// `MultipartLedger.markNativeUploadChecked`.
    public func markNativeUploadChecked(uploadId: String, nowMs: Int64) throws(RecordsError) {
        try write(durable: false) { (connection) throws(RecordsError) in
            _ = try connection.run(nq.checked, [.text(uploadId), .int(nowMs)])
        }
    }

    /// A native upload from a row in `NativeUploadQueries.columns` order.
    private static func nativeUpload(from row: SQLiteStatement) throws(RecordsError) -> NativeUploadEntry {
        NativeUploadEntry(
            uploadId: row.text(0), objectKey: row.text(1), ownerId: row.text(2), size: row.int64(3),
            partSize: row.int64(4), createdAtMs: row.int64(5), state: try NativeUploadQueries.state(row.text(6)),
            reason: row.optionalText(7), recordId: row.optionalText(8), checkedAtMs: row.int64(9))
    }
}
