/// What the scan queue holds, for the metrics and `/readyz` (`ScanQueue.scanQueueStats`).
public struct ScanQueueStats: Sendable, Equatable {
    /// Records in state `scanning`.
    public var scanning: Int
    /// When the oldest of them was recorded (epoch ms), or nil.
    public var oldestCreatedAtMs: Int64?

    /// Stats from their fields.
    public init(scanning: Int, oldestCreatedAtMs: Int64?) {
        self.scanning = scanning
        self.oldestCreatedAtMs = oldestCreatedAtMs
    }
}
