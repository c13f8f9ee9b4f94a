import Crypto
import Testing

/// `RAND_bytes` wrapper: lengths and that output is not constant.
struct SecureRandomTests {
    @Test("requested lengths are honoured", arguments: [0, 1, 16, 32, 4096])
    func lengths(count: Int) throws {
        #expect(try SecureRandom.bytes(count: count).count == count)
    }

    @Test("two draws of 32 bytes differ and are not all zero")
    func distinct() throws {
        let first = try SecureRandom.bytes(count: 32)
        let second = try SecureRandom.bytes(count: 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test("byte values spread over the whole range")
    func spread() throws {
        let bytes = try SecureRandom.bytes(count: 65536)
        var counts = [Int](repeating: 0, count: 256)
        for byte in bytes { counts[Int(byte)] += 1 }
        // Expected 256 each; a fair generator falls outside 128...384 with negligible probability.
        #expect(counts.allSatisfy { (128...384).contains($0) })
    }
}
