import Crypto
import Testing

/// Random UUIDs: the RFC 9562 section 5.4 layout (version 4, variant 10), lower case, 8-4-4-4-12.
struct UUIDv4Tests {
    @Test("formatting fixed bytes sets the version and variant bits")
    func formatting() {
        #expect(UUIDv4.format(randomBytes: [UInt8](repeating: 0, count: 16)) == "00000000-0000-4000-8000-000000000000")
        #expect(
            UUIDv4.format(randomBytes: [UInt8](repeating: 0xff, count: 16)) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(UUIDv4.format(randomBytes: Array(0..<16)) == "00010203-0405-4607-8809-0a0b0c0d0e0f")
    }

    @Test("random UUIDs are well formed and distinct")
    func random() throws {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let uuid = try UUIDv4.random()
            let characters = Array(uuid.utf8)
            #expect(characters.count == 36)
            #expect([8, 13, 18, 23].allSatisfy { characters[$0] == UInt8(ascii: "-") })
            #expect(characters[14] == UInt8(ascii: "4"))
            #expect("89ab".utf8.contains(characters[19]))
            #expect(uuid == uuid.lowercased())
            #expect(Hex.decode(String(uuid.filter { $0 != "-" })) != nil)
            seen.insert(uuid)
        }
        #expect(seen.count == 1000)
    }
}
