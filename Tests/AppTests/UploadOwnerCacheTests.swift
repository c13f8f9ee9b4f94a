import Testing

@testable import App

@Suite("UploadOwnerCache: part URLs signed on the loop only for a known owner")
struct UploadOwnerCacheTests {
    @Test func knownOwnerUntilExpiry() {
        let cache = UploadOwnerCache()
        cache.remember("k#u", ownerId: "7", expiresAtMs: 1000)
        #expect(cache.owns("k#u", ownerId: "7", nowMs: 999))
        #expect(!cache.owns("k#u", ownerId: "7", nowMs: 1000), "expired with its intent")
        #expect(!cache.owns("k#u", ownerId: "8", nowMs: 0), "another caller goes to the store")
        #expect(!cache.owns("k#v", ownerId: "7", nowMs: 0), "another upload id of the same key")
    }

    @Test func forgetOnCompleteOrAbort() {
        let cache = UploadOwnerCache()
        cache.remember("k#u", ownerId: "7", expiresAtMs: 1000)
        cache.forget("k#u")
        #expect(!cache.owns("k#u", ownerId: "7", nowMs: 0))
        #expect(cache.count == 0)
    }

    @Test func boundedByClearingWhenFull() {
        let cache = UploadOwnerCache(capacity: 3)
        for i in 0..<3 { cache.remember("k\(i)#u", ownerId: "7", expiresAtMs: 1000) }
        #expect(cache.count == 3)
        cache.remember("k0#u", ownerId: "7", expiresAtMs: 2000)
        #expect(cache.count == 3, "refreshing an entry keeps the others")
        cache.remember("k3#u", ownerId: "7", expiresAtMs: 1000)
        #expect(cache.count == 1, "a new entry in a full table clears it first")
        #expect(cache.owns("k3#u", ownerId: "7", nowMs: 0))
        #expect(!cache.owns("k1#u", ownerId: "7", nowMs: 0))
    }
}
