import Testing

@testable import SigV4

/// SigV4's `UriEncode`: RFC 3986 section 2.3 unreserved characters kept, every other UTF-8 byte as
/// upper-case `%XX` (AWS "Create a canonical request": "Do not URI-encode any of the unreserved
/// characters... Percent-encode all other characters with %XY... letters in hexadecimal must be
/// uppercase... space character must be encoded as %20... encode the forward slash except in the
/// object key name").
struct URIEncodingTests {
    /// Raw text, encoded as a query value, encoded in a path.
    static let table: [(String, String, String)] = [
        ("abcXYZ019", "abcXYZ019", "abcXYZ019"),
        ("-._~", "-._~", "-._~"),
        (" ", "%20", "%20"),
        ("+", "%2B", "%2B"),
        ("%", "%25", "%25"),
        ("%2F", "%252F", "%252F"),
        ("a/b", "a%2Fb", "a/b"),
        ("//", "%2F%2F", "//"),
        ("!*'()", "%21%2A%27%28%29", "%21%2A%27%28%29"),
        ("=&?#", "%3D%26%3F%23", "%3D%26%3F%23"),
        (":@,;$", "%3A%40%2C%3B%24", "%3A%40%2C%3B%24"),
        ("[]{}|\\^`\"<>", "%5B%5D%7B%7D%7C%5C%5E%60%22%3C%3E", "%5B%5D%7B%7D%7C%5C%5E%60%22%3C%3E"),
        ("\t\n\u{7F}\u{0}", "%09%0A%7F%00", "%09%0A%7F%00"),
        ("한", "%ED%95%9C", "%ED%95%9C"),
        ("\u{E9}", "%C3%A9", "%C3%A9"),
        ("e\u{301}", "e%CC%81", "e%CC%81"),
        ("😀", "%F0%9F%98%80", "%F0%9F%98%80"),
        (
            "photos/한글 파일+(1)~!*'.jpg", "photos%2F%ED%95%9C%EA%B8%80%20%ED%8C%8C%EC%9D%BC%2B%281%29~%21%2A%27.jpg",
            "photos/%ED%95%9C%EA%B8%80%20%ED%8C%8C%EC%9D%BC%2B%281%29~%21%2A%27.jpg"
        ),
    ]

    @Test("encoding table", arguments: table)
    func encoding(raw: String, query: String, path: String) {
        #expect(URIEncoding.encode(raw) == query)
        #expect(URIEncoding.encode(raw, keepingSlash: true) == path)
    }

    @Test("every byte value: unreserved kept, others %XX upper case")
    func everyByte() {
        for value in UInt8(0)...UInt8(127) {
            let text = String(decoding: [value], as: UTF8.self)
            let encoded = URIEncoding.encode(text)
            let scalar = Character(Unicode.Scalar(value))
            if scalar.isASCII && (scalar.isLetter || scalar.isNumber || "-._~".contains(scalar)) {
                #expect(encoded == text)
            } else {
                let hex = String(value, radix: 16, uppercase: true)
                #expect(encoded == "%" + (hex.count == 1 ? "0" + hex : hex))
            }
        }
    }
}
