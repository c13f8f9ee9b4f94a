import TestSupport
import Testing

@testable import Records

/// Cursor tokens: opaque, URL-safe, and strict about what they accept. Expected tokens were computed
/// independently with Python's `base64.urlsafe_b64encode` (RFC 4648 section 5), padding removed.
@Suite(.blocking) struct RecordCursorTests {
    static let vectors: [(createdAtMs: Int64, id: String, token: String)] = [
        (
            1_700_000_000_000, "0b7c3f0e-6c1e-4a8e-9d2f-3b1f6a2c9e11",
            "MToxNzAwMDAwMDAwMDAwOjBiN2MzZjBlLTZjMWUtNGE4ZS05ZDJmLTNiMWY2YTJjOWUxMQ"
        ),
        (0, "a", "MTowOmE"),
        (42, "ab", "MTo0MjphYg"),
    ]

    @Test(arguments: vectors.indices)
    func tokensMatchTheReferenceEncoding(index: Int) throws {
        let vector = Self.vectors[index]
        let cursor = RecordCursor(createdAtMs: vector.createdAtMs, id: vector.id)
        #expect(cursor.token == vector.token)
        #expect(RecordCursor(token: vector.token) == cursor)
    }

    @Test func tokensAreURLSafe() {
        for ms: Int64 in [0, 1, 999_999_999_999_999, Int64(1) << 52] {
            let token = RecordCursor(createdAtMs: ms, id: Sample.uuid()).token
            #expect(
                token.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                })
            #expect(RecordCursor(token: token)?.createdAtMs == ms)
        }
    }

    /// Garbage, each from Python's encoder where it is base64 of a wrong payload.
    @Test(arguments: [
        "", "!!!!", "MTowOmE=", "MTowOmE==", "MTowOmE\n", "MTowOmF",  // padding, newline, non-zero trailing bits
        "M", "MTowO", "Mjo1OmFiYw",  // impossible length; version 2
        "MTotNTphYmM", "MToxMmE6YWJj", "MTo1Og", "MTo1OmEgYg", "MTo1",  // -5; 12a; empty id; id with space; 2 parts
        "MTo5OTk5OTk5OTk5OTk5OTk5OTk5OTphYmM", "MTo1OmEvYg",  // 20-digit time; id with a slash
        "MTowOmE+", "MTowOmE/", String(repeating: "A", count: 400),
    ])
    func garbageIsRejected(token: String) {
        #expect(RecordCursor(token: token) == nil)
    }
}
