import Records

/// What `GET /uploads/{uploadId}` answers: where the upload is, from the ledger and storage's ListParts.
public struct NativeUploadStatus: Sendable {
    /// `uploading`, `completed`, `aborted` or `expired`.
    public var state: String
    /// The upload as the ledger has it.
    public var entry: NativeUploadEntry
    /// Bytes storage holds in the upload's parts.
    public var receivedBytes: Int64
    /// Bytes from the first byte up to the first missing part.
    public var contiguousBytes: Int64
    /// The parts storage does not hold, in order.
    public var missingParts: [Int]
    /// The record, once completed.
    public var record: ImageRecord?
    /// Why the server aborted it, when it did.
    public var reason: String?

    /// A status from what the ledger and storage hold: `listed` part numbers with their sizes.
    public static func uploading(_ entry: NativeUploadEntry, listed: [Int: Int64]) -> NativeUploadStatus {
        var received: Int64 = 0
        var contiguous: Int64 = 0
        var missing: [Int] = []
        var gap = false
        for n in 1...max(1, entry.partCount) {
            if let size = listed[n] {
                received += size
                if !gap { contiguous += size }
            } else {
                missing.append(n)
                gap = true
            }
        }
        return NativeUploadStatus(
            state: NativeUploadEntry.State.uploading.rawValue, entry: entry, receivedBytes: received,
            contiguousBytes: contiguous, missingParts: missing, record: nil, reason: nil)
    }
}
