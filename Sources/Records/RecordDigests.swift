/// Records by the SHA-256 of their bytes (schema version 11): an owner's records with one digest
/// (`GET /images?sha256=`), and the claim of an upload whose bytes another record of its owner already
/// holds, settled by that record (`types.<T>.dedup`). Both SQL stores and the in-memory one, held to one
/// conformance suite.
public protocol RecordDigests: Sendable {
    /// One page of `ownerId`'s records whose `sha256` is `sha256` (base64), of `type` when given, newest
    /// first (createdAtMs desc, id desc), starting strictly after `after`; `limit` in
    /// `1...RecordStoreLimits.maxListLimit`; `next` is nil when no such record follows the page.
    func listRecords(ownerId: String, sha256: String, type: String?, limit: Int, after: RecordCursor?)
        throws(RecordsError) -> (records: [ImageRecord], next: RecordCursor?)

    /// Settles the claim `token` holds on `imageKey` as `recorded` by `recordId`, another key's record
    /// of the same owner and bytes, without inserting a record for `imageKey`: a later claim of the key
    /// reads `.finished` with that record's id. False when `token` no longer holds the claim (nothing
    /// changes). Durable before it returns.
    func settleDeduplicated(imageKey: String, token: String, recordId: String, nowMs: Int64) throws(RecordsError)
        -> Bool
}
