import Crypto
import Testing

@Suite("RandomPool")
struct RandomPoolTests {
    @Test("UUIDs are version 4, lower case, and distinct across several refills of the pool")
    func uuids() throws {
        let pool = RandomPool()
        var seen = Set<String>()
        for _ in 0..<2000 {  // 2000 × 16 bytes spans about 8 refills of 4 KiB
            let u = try pool.uuid()
            #expect(u.count == 36)
            #expect(u == u.lowercased())
            let chars = Array(u)
            #expect(chars[14] == "4")
            #expect("89ab".contains(chars[19]))
            seen.insert(u)
        }
        #expect(seen.count == 2000)
    }
}
