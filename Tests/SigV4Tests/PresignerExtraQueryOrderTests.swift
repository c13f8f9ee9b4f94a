import Crypto
import Testing

@testable import SigV4

/// The canonical query of a presign with extra parameters: the extras are written around the block
/// of authentication parameters (no extra may start with `X-Amz-`), so the whole must still be every
/// encoded pair sorted by name, byte for byte, whatever the extras' names and their given order. The
/// oracle here sorts all pairs itself.
struct PresignerExtraQueryOrderTests {
    /// Names that sort before, among and after `X-Amz-*`: upper and lower case, prefixes of `X-Amz-`,
    /// `X-Amz` followed by bytes above and below `-`, names that need encoding.
    static let names = [
        "partNumber", "uploadId", "Alpha", "Zeta", "X-Am", "X-Amz", "X-Amzfoo", "X-Amz_", "X-AmzA", "X-A",
        "X", "a b", "~x", "-x", "0", "response-content-type", "x-id",
    ]

    @Test func theCanonicalQueryIsEveryPairSortedByName() throws {
        let presigner = try PresignerTests.presigner()
        var rng = SplitMix(seed: 7)
        for round in 0..<300 {
            var pool = Self.names
            var query: [(name: String, value: String)] = []
            for _ in 0..<(1 + Int(rng.next() % 5)) {
                let name = pool.remove(at: Int(rng.next() % UInt64(pool.count)))
                query.append((name, "v\(round)/\(rng.next() % 100) ="))
            }
            var canonical = ""
            let url = try presigner.presign(
                PresignRequest(method: "PUT", bucket: "bucket", key: "k/x.jpg", expires: 900, query: query),
                now: PresignerTests.fixtureTime, inspect: { c, _ in canonical = c }
            ).url
            let lines = canonical.split(separator: "\n", omittingEmptySubsequences: false)
            let pairs = lines[2].split(separator: "&").map { pair -> (name: [UInt8], whole: Substring) in
                (Array(pair[..<(pair.firstIndex(of: "=") ?? pair.endIndex)].utf8), pair)
            }
            let sorted = pairs.sorted { $0.name.lexicographicallyPrecedes($1.name) }
            #expect(pairs.map(\.whole) == sorted.map(\.whole), "round \(round): \(lines[2])")
            #expect(pairs.count == query.count + 5)
            // Every extra is there, encoded, and the URL lists them first, in the order given.
            let encoded = query.map { pair -> String in
                var name = [UInt8]()
                var value = [UInt8]()
                URIEncoding.append(pair.name, keepingSlash: false, to: &name)
                URIEncoding.append(pair.value, keepingSlash: false, to: &value)
                return String(decoding: name + [UInt8(ascii: "=")] + value, as: UTF8.self)
            }
            for e in encoded { #expect(pairs.contains { $0.whole == e }, "\(e)") }
            let urlQuery = String(url[url.firstIndex(of: "?")!...].dropFirst())
            #expect(urlQuery.hasPrefix(encoded.joined(separator: "&") + "&X-Amz-Algorithm="))
        }
    }

    @Test func extraNamesStartingWithXAmzAreStillRefusedInAnyCase() throws {
        let presigner = try PresignerTests.presigner()
        for name in ["X-Amz-Foo", "x-amz-foo", "X-AMZ-", "x-Amz-Date"] {
            #expect(throws: SigV4Error.self) {
                try presigner.presign(
                    PresignRequest(method: "GET", bucket: "bucket", key: "k", expires: 60, query: [(name, "v")]),
                    now: PresignerTests.fixtureTime)
            }
        }
        #expect(!Presigner.hasAmzPrefix("X-Amz"))
        #expect(!Presigner.hasAmzPrefix("X-Amzfoo"))
        #expect(!Presigner.hasAmzPrefix("ẋ-amz-"))
        #expect(Presigner.hasAmzPrefix("X-aMz-anything"))
    }
}

/// A small deterministic generator for the rounds above.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
