import Crypto
import Testing

/// Time-ordered UUIDs made from random ones, and their first 64 bits read back out of a key.
struct UUIDv7Tests {
    @Test("stamping writes the time, the version and rand_a, and keeps the rest")
    func stamping() throws {
        let random = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
        // 0x0193_4b2a_9c01 ms, rand_a 0xabc.
        let stamped = try #require(UUIDv7.stamping(random, millis: 0x0193_4b2a_9c01, sequence: 0xabc))
        #expect(stamped == "01934b2a-9c01-7abc-9d6f-1f2e3d4c5b6a")
        // Without a sequence, rand_a keeps the random UUID's bits.
        #expect(UUIDv7.stamping(random, millis: 0, sequence: nil) == "00000000-0000-7c2e-9d6f-1f2e3d4c5b6a")
        // Only the low 12 bits of the sequence count.
        #expect(UUIDv7.stamping(random, millis: 1, sequence: 0x1fff) == "00000000-0001-7fff-9d6f-1f2e3d4c5b6a")
    }

    @Test("stamping refuses what is no canonical lower-case UUID, and times beyond 48 bits")
    func stampingRefuses() {
        for text in [
            "", "u1", "0B7E6A57-2C1B-4C2E-9D6F-1F2E3D4C5B6A", "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6",
            "0b7e6a572c1b4c2e9d6f1f2e3d4c5b6a",
            "0b7e6a57-2c1b-4c2e-9d6f_1f2e3d4c5b6a", "0b7e6a57-2c1b-4c2e-cd6f-1f2e3d4c5b6a",
        ] {
            #expect(UUIDv7.stamping(text, millis: 1, sequence: 1) == nil, "\(text)")
        }
        let random = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
        #expect(UUIDv7.stamping(random, millis: -1) == nil)
        #expect(UUIDv7.stamping(random, millis: 1 << 48) == nil)
        #expect(UUIDv7.stamping(random, millis: 1 << 48 - 1) != nil)
    }

    @Test("the leading bits of the last version-7 UUID in a key: time << 16, version, rand_a")
    func leadingBits() throws {
        let uuid = try #require(UUIDv7.stamping(try UUIDv4.random(), millis: 1_765_000_600_123, sequence: 42))
        let expected = Int64(1_765_000_600_123) << 16 | 0x7000 | 42
        #expect(UUIDv7.leadingBits(ofLastIn: uuid) == expected)
        #expect(UUIDv7.leadingBits(ofLastIn: "delete/profile/user-1/\(uuid)_1765000000123.jpg") == expected)
        #expect(UUIDv7.leadingBits(ofLastIn: "delete/feed/\(uuid)/\(uuid)_1.jpg") == expected)
        // The last one counts: a chatroom's UUID before the upload's.
        let earlier = try #require(UUIDv7.stamping(try UUIDv4.random(), millis: 5, sequence: 0))
        #expect(UUIDv7.leadingBits(ofLastIn: "chat/\(earlier)/\(uuid).jpg") == expected)
        #expect(UUIDv7.leadingBits(ofLastIn: "\(uuid)#upload-id") == expected)
        #expect(UUIDv7.leadingBits(ofLastIn: "x\(uuid)") == expected)
    }

    @Test("keys without a version-7 UUID in canonical lower-case form have none")
    func noLeadingBits() throws {
        let uuid = try #require(UUIDv7.stamping(try UUIDv4.random(), millis: 77, sequence: 1))
        for key in [
            "", "profile.jpg", try UUIDv4.random(), uuid.uppercased(), String(uuid.dropLast()),
            uuid.replacingOccurrences(of: "-", with: ""), String(uuid.dropFirst(1)),
            // The variant must be 10 (8, 9, a or b at 19).
            String(uuid.prefix(19)) + "c" + String(uuid.dropFirst(20)),
        ] {
            #expect(UUIDv7.leadingBits(ofLastIn: key) == nil, "\(key)")
        }
    }

    @Test("keys drawn one after another sort by time, then by sequence")
    func order() throws {
        var previous = Int64.min
        for (millis, sequence) in [(1000, 0), (1000, 1), (1000, 4095), (1001, 0), (2000, 7)] {
            let uuid = try #require(UUIDv7.stamping(try UUIDv4.random(), millis: Int64(millis), sequence: sequence))
            let bits = try #require(UUIDv7.leadingBits(ofLastIn: uuid))
            #expect(bits > previous)
            #expect(bits >> 16 == Int64(millis))
            previous = bits
        }
    }
}
