import JSON
import Testing

@Suite struct JSONWriterTests {
    /// RFC 8259, section 7: `"`, `\` and U+0000–U+001F must be escaped; `/` may stay as is.
    @Test(arguments: [
        ("plain", #""plain""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("a/b", #""a/b""#),
        ("\u{0}", #""\u0000""#),
        ("\n\r\t", #""\u000a\u000d\u0009""#),
        ("\u{8}\u{C}\u{1F}", #""\u0008\u000c\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é😀", "\"é😀\""),
        ("\u{2028}", "\"\u{2028}\""),
        ("", #""""#),
        ("\"\"\\\\", #""\"\"\\\\""#),
    ])
    func escapesStrings(_ input: String, _ expected: String) throws {
        var writer = JSONWriter()
        writer.string(input)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
        #expect(try JSONValue(parsing: writer.bytes) == .string(input))

        var fromBytes = JSONWriter()
        fromBytes.string(utf8: Array(input.utf8))
        #expect(fromBytes.bytes == writer.bytes)
    }

    @Test func escapesEveryControlCharacterAndRoundTrips() throws {
        let all = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        var writer = JSONWriter()
        writer.string(all)
        #expect(writer.bytes.allSatisfy { $0 >= 0x20 })
        #expect(try JSONValue(parsing: writer.bytes) == .string(all))
    }

    @Test func writesADocumentWithCommasInPlace() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("presignedUrl")
        writer.string("https://s3.example.com/uploads/a%2Fb?X-Amz-Algorithm=AWS4-HMAC-SHA256")
        writer.key("expiresIn")
        writer.int(600)
        writer.key("ok")
        writer.bool(true)
        writer.key("no")
        writer.bool(false)
        writer.key("none")
        writer.null()
        writer.key("list")
        writer.beginArray()
        writer.int(Int64.min)
        writer.int(0)
        writer.int(Int64.max)
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.endArray()
        writer.key("raw")
        writer.raw(#"{"a":1}"#)
        writer.key("pi")
        writer.double(3.25)
        writer.key("nan")
        writer.double(.nan)
        writer.endObject()
        let expected =
            #"{"presignedUrl":"https://s3.example.com/uploads/a%2Fb?X-Amz-Algorithm=AWS4-HMAC-SHA256","#
            + #""expiresIn":600,"ok":true,"no":false,"none":null,"#
            + #""list":[-9223372036854775808,0,9223372036854775807,{},[]],"raw":{"a":1},"pi":3.25,"nan":null}"#
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test(arguments: [Int64(0), 1, -1, 9, 10, 99, 100, 4_294_967_296, -1_234_567_890_123, .max, .min])
    func writesIntegersLikeSwift(_ value: Int64) {
        var writer = JSONWriter()
        writer.int(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }

    @Test func appendsAfterExistingBytesAndResets() {
        var writer = JSONWriter(appendingTo: Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        writer.beginArray()
        writer.string("x")
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\n\r\n[\"x\"]")
        writer.reset()
        writer.int(1)
        #expect(writer.bytes == Array("1".utf8))
    }
}
