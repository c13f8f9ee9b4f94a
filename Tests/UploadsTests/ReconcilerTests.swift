import Records
import Testing
import UploadsTestSupport

@testable import Uploads

/// The reconciler's bounded, paged sweep, over the in-memory store and storage at a fixed time.
@Suite("Reconciler")
struct ReconcilerTests {
    /// The harness's time in epoch seconds (listings' `lastModified`).
    static let nowSeconds = LifecycleHarness.now / 1000

    /// A reconciler of `prefixes` over `h`, objects younger than 60 s left alone.
    static func reconciler(_ h: LifecycleHarness, prefixes: [String], maxPages: Int, pageSize: Int) -> Reconciler {
        Reconciler(
            storage: h.storage, store: h.store, confirmer: h.confirmer, prefixes: prefixes, intervalMs: 1000,
            minAgeMs: 60_000, maxPages: maxPages, pageSize: pageSize, deleteOrphans: true,
            env: UploadEnvironment(nowMillis: { LifecycleHarness.now }, newUUID: { "token" }),
            events: { [events = h.events] in events.append($0) })
    }

    /// An upload at `key` written `age` seconds ago, with an intent (owner 7) unless `issued` is false.
    static func object(_ h: LifecycleHarness, _ key: String, age: Int64 = 600, issued: Bool = true) throws {
        if issued {
            try h.store.putIntents([
                UploadIntent(
                    ownerId: "7", imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE",
                    contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 1000,
                    createdAtMs: LifecycleHarness.now - 700_000, expiresAtMs: LifecycleHarness.now + 600_000)
            ])
        }
        h.storage.put(key, bytes: LifecycleHarness.jpeg, contentType: "image/jpeg", lastModified: nowSeconds - age)
    }

    @Test("records an old object with a live intent; leaves a young one, an unissued key and other prefixes")
    func recordsOnlyWhatItIssued() throws {
        let h = try LifecycleHarness()
        try Self.object(h, "up/old")
        try Self.object(h, "up/young", age: 5)
        try Self.object(h, "up/foreign", issued: false)
        try Self.object(h, "elsewhere/issued")
        let r = Self.reconciler(h, prefixes: ["up/"], maxPages: 10, pageSize: 1000)
        r.pass()
        #expect(try h.store.record(imageKey: "up/old")?.ownerId == "7", "its event was lost: recorded")
        #expect(try h.store.record(imageKey: "up/young") == nil, "its client's confirmation may still come")
        #expect(try h.store.record(imageKey: "up/foreign") == nil)
        #expect(try h.store.record(imageKey: "elsewhere/issued") == nil, "not under an upload prefix")
        #expect(h.storage.keys == ["up/old", "up/young", "up/foreign", "elsewhere/issued"], "nothing deleted")
        let calls = h.storage.calls
        #expect(calls.filter { $0.hasPrefix("LIST") } == ["LIST up/ -"])
        #expect(!calls.contains { $0.contains("foreign") || $0.contains("elsewhere") }, "\(calls)")
        #expect(r.recorded.load(ordering: .relaxed) == 1)
        #expect(r.examined.load(ordering: .relaxed) == 2, "the young object is not examined")
    }

    @Test("a pass reads at most maxPages pages; the next goes on from there, then starts again")
    func pagesBoundedAndResumed() throws {
        let h = try LifecycleHarness()
        for n in 1...3 { try Self.object(h, "a/\(n)") }
        try Self.object(h, "b/1")
        let r = Self.reconciler(h, prefixes: ["b/", "a/"], maxPages: 2, pageSize: 1)
        func lists() -> [String] { h.storage.calls.filter { $0.hasPrefix("LIST") } }
        func recorded() throws -> [String] {
            try ["a/1", "a/2", "a/3", "b/1"].filter { try h.store.record(imageKey: $0) != nil }
        }
        r.pass()
        #expect(lists() == ["LIST a/ -", "LIST a/ a/1"], "two pages of one key")
        #expect(try recorded() == ["a/1", "a/2"])
        r.pass()
        #expect(lists().dropFirst(2) == ["LIST a/ a/2", "LIST b/ -"], "resumed after a/2, then the next prefix")
        #expect(try recorded() == ["a/1", "a/2", "a/3", "b/1"])
        r.pass()
        #expect(lists().dropFirst(4) == ["LIST a/ -", "LIST a/ a/1"], "after the last page: from the first prefix")
        #expect(r.recorded.load(ordering: .relaxed) == 4)
    }
}
