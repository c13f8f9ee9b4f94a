/// The records waiting for their malware scan (schema version 13): the `scanning` records, due in order,
/// and their one-time settlement to `published` or `rejected` with its outbox events in the same
/// transaction. The scanner (Uploads' `ScanWorker`) runs under a lease and settles through its fence
/// (`FencedWrites.settleScan`); docs/scanning.md has the protocol.
public protocol ScanQueue: Sendable {
    /// Up to `limit` `scanning` records due at `nowMs` (their `dueAtMs` passed), soonest due first.
    func dueScans(nowMs: Int64, limit: Int) throws(RecordsError) -> [ScanEntry]

    /// Settles one scan of the record `id` unfenced (one process, tests): the record as it is now, and
    /// the outbox events `events` makes of it written in the same transaction; nil (nothing written) when
    /// the record is not `scanning` (settled already, or deleted by its owner).
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?

    /// How many records are `scanning`, and the oldest.
    func scanQueueStats() throws(RecordsError) -> ScanQueueStats
}
