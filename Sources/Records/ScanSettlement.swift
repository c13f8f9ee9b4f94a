/// How one scan of a `scanning` record ended (`ScanQueue.settleScan`, `FencedWrites.settleScan`).
public enum ScanSettlement: Sendable, Equatable {
    /// Clean: the record becomes `published`, its object now under `objectKey` (its permanent key once
    /// promoted, else where it was).
    case published(objectKey: String)
    /// Refused: the record becomes `rejected` with `reason` (`MALWARE_FOUND`, `TOO_LARGE_TO_SCAN`) and
    /// `detail` (the signature's name, or the sizes).
    case rejected(reason: String, detail: String)
    /// Not scanned this time (the scanner was unreachable, timed out, or storage failed): the record stays
    /// `scanning`, tried again at `dueAtMs`, with its attempts counted and `error` kept.
    case retry(dueAtMs: Int64, error: String)
}
