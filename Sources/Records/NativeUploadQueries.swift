/// The SQL of the native uploads and of the keys noted before CreateMultipartUpload (schema version 14),
/// in both dialects: the same statements with SQLite's `?n` or PostgreSQL's `$n` placeholders.
package struct NativeUploadQueries {
    /// The columns of `native_uploads`, in the order the row readers expect.
    static let columns =
        "upload_id, object_key, owner_id, size, part_size, created_at_ms, state, reason, record_id, checked_at_ms"

    /// Inserts an upload (the columns in order).
    let insert: String
    /// One upload (?1 upload id).
    let byId: String
    /// Settles an open upload (?1 id, ?2 state, ?3 reason, ?4 record id).
    let settle: String
    /// The open uploads checked before ?1, least recently checked first, at most ?2.
    let open: String
    /// Notes a check (?1 id, ?2 now).
    let checked: String
    /// Notes a key before its creation (?1 key, ?2 owner, ?3 now).
    let noteCreation: String
    /// Forgets a noted key (?1 key).
    let forgetCreation: String
    /// The keys noted before ?1, oldest first, at most ?2.
    let creations: String

    /// The statements with placeholder `n` written by `p`.
    init(_ p: (Int) -> String) {
        let c = Self.columns
        insert = "INSERT INTO native_uploads (\(c)) VALUES (\((1...10).map(p).joined(separator: ", ")))"
        byId = "SELECT \(c) FROM native_uploads WHERE upload_id = \(p(1))"
        settle = """
            UPDATE native_uploads SET state = \(p(2)), reason = \(p(3)), record_id = \(p(4))
            WHERE upload_id = \(p(1)) AND state = 'uploading'
            """
        open = """
            SELECT \(c) FROM native_uploads WHERE state = 'uploading' AND checked_at_ms < \(p(1))
            ORDER BY checked_at_ms, upload_id LIMIT \(p(2))
            """
        checked = "UPDATE native_uploads SET checked_at_ms = \(p(2)) WHERE upload_id = \(p(1))"
        noteCreation = """
            INSERT INTO multipart_creations (object_key, owner_id, noted_at_ms) VALUES (\(p(1)), \(p(2)), \(p(3)))
            ON CONFLICT (object_key) DO UPDATE SET owner_id = excluded.owner_id, noted_at_ms = excluded.noted_at_ms
            """
        forgetCreation = "DELETE FROM multipart_creations WHERE object_key = \(p(1))"
        creations = """
            SELECT object_key, owner_id, noted_at_ms FROM multipart_creations WHERE noted_at_ms < \(p(1))
            ORDER BY noted_at_ms, object_key LIMIT \(p(2))
            """
    }

    /// SQLite's statements.
    static let sqlite = NativeUploadQueries { "?\($0)" }
    /// PostgreSQL's statements.
    static let postgres = NativeUploadQueries { "$\($0)" }

    /// An upload's values in `columns` order.
    static func values(of u: NativeUploadEntry) -> [SQLValue] {
        [
            .text(u.uploadId), .text(u.objectKey), .text(u.ownerId), .int(u.size), .int(u.partSize),
            .int(u.createdAtMs), .text(u.state.rawValue), .optionalText(u.reason), .optionalText(u.recordId),
            .int(u.checkedAtMs),
        ]
    }

    /// A state read back.
    static func state(_ text: String) throws(RecordsError) -> NativeUploadEntry.State {
        guard let s = NativeUploadEntry.State(rawValue: text) else {
            throw .corrupt("a native upload's state is \(text)")
        }
        return s
    }
}
