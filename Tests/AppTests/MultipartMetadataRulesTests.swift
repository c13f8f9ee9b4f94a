import JSON
import Testing

@testable import App

/// The pure rules of Uppy's metadata: bounds, string values only, keys once, what the record keeps;
/// and the upload ID check of every route.
@Suite struct MultipartMetadataRulesTests {
    private func check(_ given: [(String, String?)]) -> MultipartRules.Metadata? {
        try? MultipartRules.metadata(given.map { (key: $0.0, value: $0.1) }).get()
    }

    @Test func theRecordKeepsEveryEntryButUploadTypeInOrder() throws {
        let m = try #require(check([("name", "a.jpg"), ("uploadType", "IMAGE"), ("chatroomId", "12"), ("z", "")]))
        #expect(m.value("uploadType") == "IMAGE")
        #expect(m.value("chatroomId") == "12")
        #expect(m.value("missing") == nil)
        #expect(m.recordJSON == #"{"name":"a.jpg","chatroomId":"12","z":""}"#)
        #expect(check([("uploadType", "IMAGE")])?.recordJSON == nil)
        #expect(check([])?.recordJSON == nil)
        // Escaped as JSON (control characters as \u00XX), non-ASCII kept as it is.
        #expect(check([("c", "say \"hi\"\n안녕")])?.recordJSON == #"{"c":"say \"hi\"\u000a안녕"}"#)
    }

    @Test func boundsAndShapes() {
        let k = MultipartRules.maxMetadataKeyBytes
        let v = MultipartRules.maxMetadataValueBytes
        #expect(check([(String(repeating: "k", count: k), String(repeating: "v", count: v))]) != nil)
        #expect(check([(String(repeating: "k", count: k + 1), "v")]) == nil)
        #expect(check([("k", String(repeating: "v", count: v + 1))]) == nil)
        #expect(check([("é", String(repeating: "é", count: v / 2))]) != nil, "bytes, not characters")
        #expect(check([("k", String(repeating: "é", count: v / 2 + 1))]) == nil)
        #expect(check([("", "v")]) == nil)
        for bad in ["a\u{0}", "a\tb", "a\u{7F}", "\n"] {
            #expect(check([(bad, "v")]) == nil, "\(bad.debugDescription)")
        }
        #expect(check([("k", nil)]) == nil, "not a string")
        #expect(check([("a", "1"), ("a", "2")]) == nil, "given twice")
        #expect(check([("\u{E9}", "nfc"), ("e\u{301}", "nfd")]) != nil, "distinct bytes are distinct keys")
        let most = (0..<MultipartRules.maxMetadataEntries).map { ("k\($0)", "v") }
        #expect(check(most) != nil)
        #expect(check(most + [("one-more", "v")]) == nil)
        // Each entry within bounds, too much together for a record.
        let heavy = (0..<16).map { ("k\($0)", String(repeating: "x", count: v)) }
        #expect(check(heavy) == nil)
        #expect(check(Array(heavy.prefix(15))) != nil)
    }

    @Test func theBodyMember() throws {
        func member(_ json: String) throws -> Result<MultipartRules.Metadata, CompanionError> {
            MultipartRules.metadata(member: try JSONValue(parsing: #"{"m":\#(json)}"#)["m"])
        }
        #expect(try member("null").get() == .none)
        #expect(try MultipartRules.metadata(member: nil).get().entries.isEmpty)
        #expect(try member(#"{"a":"b"}"#).get().entries == [.init(key: "a", value: "b")])
        for bad in ["[]", "1", #""s""#, "true", #"{"a":1}"#, #"{"a":null}"#, #"{"a":{}}"#, #"{"a":["b"]}"#] {
            guard case .failure(let e) = try member(bad) else {
                Issue.record("\(bad) accepted")
                continue
            }
            #expect(e.status == 400 && e.code == "BAD_REQUEST", "\(bad)")
        }
    }

    @Test func uploadIds() {
        #expect(MultipartRules.isUploadId("2~VRL-trWyxZdupJnloDYm80u9gVVTQir"))
        #expect(MultipartRules.isUploadId(String(repeating: "a", count: 1024)))
        #expect(MultipartRules.isUploadId("short"), "a small string")
        for bad in ["", String(repeating: "a", count: 1025), "a b", "a\u{7F}", "é", "a\tb"] {
            #expect(!MultipartRules.isUploadId(bad), "\(bad.debugDescription)")
        }
    }
}
