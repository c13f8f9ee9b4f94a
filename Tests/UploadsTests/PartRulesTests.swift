import Testing

@testable import Uploads

/// S3's part rules and the check of a completion against ListParts (limits: the S3 API reference,
/// "Multipart upload limits": parts 1...10000, 5 MiB to 5 GiB but the last).
@Suite struct PartRulesTests {
    @Test func completionChecks() {
        let mib = Int64(1024 * 1024)
        let listed: [Int: (etag: String, size: Int64)] = [
            1: ("\"e1\"", 5 * mib), 2: ("\"e2\"", 5 * mib), 3: ("\"e3\"", 1), 4: ("\"e4\"", 1),
        ]
        func check(_ given: [(Int, String)], max: Int64 = 100 * mib) -> String {
            do throws(UploadError) {
                let ok = try PartRules.checkCompletion(
                    given: given.map { PartRules.Part(number: $0.0, etag: $0.1) }, listed: listed, maxBytes: max,
                    type: "IMAGE")
                return "ok \(ok.total) " + ok.parts.map(\.etag).joined(separator: ",")
            } catch {
                return "\(error)"
            }
        }
        // Quotes or none, the store's ETags are sent back.
        #expect(check([(1, "e1"), (2, "\"e2\""), (3, "e3")]) == "ok \(10 * mib + 1) \"e1\",\"e2\",\"e3\"")
        #expect(check([(1, "e1"), (2, "wrong")]) == "partNotUploaded(partNumber: 2)")
        #expect(check([(1, "e1"), (9, "e9")]) == "partNotUploaded(partNumber: 9)")
        #expect(check([(1, "e1"), (3, "e3"), (4, "e4")]) == "partTooSmall(partNumber: 3)")
        #expect(check([(3, "e3")]) == "ok 1 \"e3\"")
        #expect(
            check([(1, "e1"), (2, "e2")], max: 10 * mib - 1)
                == "uploadTooLarge(size: \(10 * mib), limit: \(10 * mib - 1), type: \"IMAGE\")")
        #expect(check([(1, "e1"), (2, "e2")], max: 10 * mib) == "ok \(10 * mib) \"e1\",\"e2\"")
        let huge: [Int: (etag: String, size: Int64)] = [1: ("x", PartRules.maxPartBytes + 1)]
        #expect(throws: UploadError.partTooLarge(partNumber: 1)) {
            try PartRules.checkCompletion(
                given: [.init(number: 1, etag: "x")], listed: huge, maxBytes: .max, type: "IMAGE")
        }
    }

    @Test(arguments: [
        ("\"abc\"", "abc"), ("abc", "abc"), ("W/\"abc\"", "abc"), ("\"\"", ""), ("\"", ""),
    ])
    func bareETags(_ etag: String, _ bare: String) {
        #expect(PartRules.bareETag(etag) == Substring(bare))
    }
}
