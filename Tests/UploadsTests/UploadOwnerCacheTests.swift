import Testing

@testable import Uploads

@Suite("UploadOwnerCache: part URLs signed on the loop only for a known owner")
struct UploadOwnerCacheTests {
    @Test func knownOwnerUntilExpiry() {
        let cache = UploadOwnerCache()
        cache.remember(key: "k", uploadId: "u", ownerId: "7", expiresAtMs: 1000)
        #expect(cache.owns(key: "k", uploadId: "u", ownerId: "7", nowMs: 999))
        #expect(!cache.owns(key: "k", uploadId: "u", ownerId: "7", nowMs: 1000), "expired with its intent")
        #expect(!cache.owns(key: "k", uploadId: "u", ownerId: "8", nowMs: 0), "another caller goes to the store")
        #expect(!cache.owns(key: "k", uploadId: "v", ownerId: "7", nowMs: 0), "another upload id of the same key")
        #expect(!cache.owns(key: "j", uploadId: "u", ownerId: "7", nowMs: 0), "the same upload id with another key")
    }

    @Test func forgetOnCompleteOrAbort() {
        let cache = UploadOwnerCache()
        cache.remember(key: "k", uploadId: "u", ownerId: "7", expiresAtMs: 1000)
        cache.forget(key: "j", uploadId: "u")
        #expect(cache.owns(key: "k", uploadId: "u", ownerId: "7", nowMs: 0), "another pair forgets nothing")
        cache.forget(key: "k", uploadId: "u")
        #expect(!cache.owns(key: "k", uploadId: "u", ownerId: "7", nowMs: 0))
        #expect(cache.count == 0)
    }

    @Test func boundedByClearingWhenFull() {
        let cache = UploadOwnerCache(capacity: 3)
        for i in 0..<3 { cache.remember(key: "k", uploadId: "u\(i)", ownerId: "7", expiresAtMs: 1000) }
        #expect(cache.count == 3)
        cache.remember(key: "k", uploadId: "u0", ownerId: "7", expiresAtMs: 2000)
        #expect(cache.count == 3, "refreshing an entry keeps the others")
        cache.remember(key: "k", uploadId: "u3", ownerId: "7", expiresAtMs: 1000)
        #expect(cache.count == 1, "a new entry in a full table clears it first")
        #expect(cache.owns(key: "k", uploadId: "u3", ownerId: "7", nowMs: 0))
        #expect(!cache.owns(key: "k", uploadId: "u1", ownerId: "7", nowMs: 0))
    }

    @Test func refs() {
        let cache = UploadOwnerCache()
        let ref = UploadRef(uploadId: "2~abc", key: "delete/x/y.jpg")
        #expect(ref.pairKey == "delete/x/y.jpg#2~abc")
        cache.remember(ref, ownerId: "7", expiresAtMs: 1000)
        #expect(cache.owns(ref, ownerId: "7", nowMs: 0))
        cache.forget(ref)
        #expect(!cache.owns(ref, ownerId: "7", nowMs: 0))
    }
}
