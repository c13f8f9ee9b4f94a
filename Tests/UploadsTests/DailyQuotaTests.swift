import Records
import RecordsTestSupport
import Synchronization
import Testing
import Uploads
import UploadsTestSupport

/// Daily quotas at issue: every intent is reserved against its owner's day in its own commit (through the
/// real intent writer), a URL over a quota is refused with which quota and when it resets, and the
/// janitor gives an expired, unconfirmed intent's reservation back.
@Suite("Daily quotas")
struct DailyQuotaTests {
    /// 2026-12-02T06:00:00Z: 18 hours before the day's reset.
    static let morning: Int64 = 1_796_191_200_000

    /// An intent of `owner` issued at `nowMs`, declared `bytes`, its URL living 10 minutes.
    static func intent(_ key: String, owner: String = "7", bytes: Int64 = 100, nowMs: Int64 = morning) -> UploadIntent {
        UploadIntent(
            ownerId: owner, imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE", contentType: "image/jpeg",
            allowedContentTypes: ["image/jpeg"], maxBytes: bytes, createdAtMs: nowMs, expiresAtMs: nowMs + 600_000)
    }

    /// Hands `intent` off through `keeper` and waits for its outcome (nil: stored).
    static func handOff(_ keeper: IntentKeeper, _ intent: UploadIntent) -> UploadError? {
        do throws(UploadError) {
            try keeper.handOffAndWait(intent)
            return nil
        } catch {
            return error
        }
    }

    @Test("the third upload of a day over a quota of two is refused, naming the quota and its reset; others go on")
    func uploadsPerDay() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 16, onError: { _ in })
        defer { writer.shutdown() }
        let keeper = IntentKeeper(writer: writer, quota: DailyQuota(uploadsPerDay: 2, bytesPerDay: 0))
        #expect(Self.handOff(keeper, Self.intent("a")) == nil)
        #expect(Self.handOff(keeper, Self.intent("b")) == nil)
        let resets = QuotaRequest.dayStart(of: Self.morning) + QuotaRequest.dayMs
        #expect(
            Self.handOff(keeper, Self.intent("c"))
                == .quotaExceeded(
                    quota: "uploadsPerDay", limit: 2, used: 2, resetsAtMs: resets, retryAfterSeconds: 18 * 3600))
        #expect(try store.intent(imageKey: "c") == nil, "a refused intent is not stored")
        // A re-issue of a reserved key moves its reservation: it counts once.
        #expect(Self.handOff(keeper, Self.intent("b")) == nil)
        // Another owner has a quota of their own; the next day is a new one.
        #expect(Self.handOff(keeper, Self.intent("d", owner: "8")) == nil)
        #expect(Self.handOff(keeper, Self.intent("e", nowMs: resets)) == nil)
        #expect(writer.quotaExceededCount == 1)
        #expect(try store.quotaUsage(ownerId: "7", dayStartMs: resets - QuotaRequest.dayMs).uploads == 2)
    }

    @Test("bytes per day count the declared size (the type's maxBytes without one)")
    func bytesPerDay() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 16, onError: { _ in })
        defer { writer.shutdown() }
        let keeper = IntentKeeper(writer: writer, quota: DailyQuota(uploadsPerDay: 0, bytesPerDay: 1000))
        #expect(Self.handOff(keeper, Self.intent("a", bytes: 600)) == nil)
        guard case .quotaExceeded("bytesPerDay", 1000, 600, _, _) = Self.handOff(keeper, Self.intent("b", bytes: 500))
        else {
            Issue.record("600 + 500 bytes passed a quota of 1000")
            return
        }
        #expect(Self.handOff(keeper, Self.intent("c", bytes: 400)) == nil, "exactly the quota is allowed")
    }

    @Test("no quota set: nothing is reserved")
    func off() throws {
        #expect(DailyQuota(uploadsPerDay: 0, bytesPerDay: 0) == nil)
        let sink = RecordingIntentSink()
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 16, onError: { _ in })
        defer { writer.shutdown() }
        let keeper = IntentKeeper(writer: writer, sink: sink, quota: nil)
        #expect(Self.handOff(keeper, Self.intent("a")) == nil)
        #expect(sink.reservations == [nil])
    }

    @Test("the janitor gives an expired, unconfirmed intent's reservation back; a confirmed one keeps it")
    func janitorReleases() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 16, onError: { _ in })
        defer { writer.shutdown() }
        let keeper = IntentKeeper(writer: writer, quota: DailyQuota(uploadsPerDay: 2, bytesPerDay: 0))
        #expect(Self.handOff(keeper, Self.intent("a")) == nil)
        #expect(Self.handOff(keeper, Self.intent("b")) == nil)
        _ = try store.insertRecords([
            ImageRecord(
                id: "r-b", ownerId: "7", imageKey: "b", objectKey: "b", type: "IMAGE", contentType: "image/jpeg",
                size: 1, etag: "e", metadataJSON: "{}", createdAtMs: Self.morning + 1000)
        ])
        try store.deleteIntents(imageKeys: ["b"])
        #expect(Self.handOff(keeper, Self.intent("c")) != nil, "both reserved")
        let clock = Atomic<Int64>(Self.morning + 600_000 + Janitor.graceMs + 1000)
        let janitor = Janitor(
            store: store, storage: InMemoryObjectStorage(), deleteObjects: true, batchSize: 10, intervalMs: 60_000,
            env: UploadEnvironment(
                nowMillis: { clock.load(ordering: .relaxed) }, newUUID: { "t-\(Int.random(in: 0..<1 << 40))" }),
            events: { _ in })
        #expect(janitor.sweep() == 1, "the one unconfirmed intent")
        #expect(janitor.quotasReleased.load(ordering: .relaxed) == 1)
        let day = QuotaRequest.dayStart(of: Self.morning)
        #expect(try store.quotaUsage(ownerId: "7", dayStartMs: day).uploads == 1, "the recorded upload still counts")
        #expect(Self.handOff(keeper, Self.intent("c")) == nil, "the released reservation is available again")
    }
}
