import Testing

@testable import Uploads

/// The small shared rules: slugs of file names, media types of Content-Type values, key extensions.
@Suite struct UploadRulesTests {
    @Test(arguments: [
        ("Holiday Video.mp4", "holiday-video"), ("../../etc/passwd", "passwd"), ("a/b/c.jpg", "c"),
        ("C:\\Users\\me\\photo.JPG", "photo"), ("..", "file"), ("", "file"), (".bashrc", "bashrc"),
        ("été à Paris.png", "t-paris"), ("a\u{0}b\u{7}c.jpg", "a-b-c"), ("__x__.tar.gz", "__x__-tar"),
        ("---", "file"), ("x" + String(repeating: "y", count: 200), "x" + String(repeating: "y", count: 63)),
    ])
    func slug(_ name: String, _ expected: String) {
        let s = UploadRules.slug(name)
        #expect(s == expected, "\(name)")
        #expect(s.utf8.count <= UploadRules.maxSlugBytes)
        #expect(!s.contains("/") && !s.contains("..") && !s.hasPrefix("-") && !s.hasSuffix("-"))
    }

    /// RFC 9110 §8.3.1: a media type is case-insensitive, parameters follow a `;`.
    @Test(
        arguments: [
            ("image/JPEG; charset=binary", "image/jpeg"), (" image/png ", "image/png"), ("", nil), (" ", nil),
            (";x", "x"),
            ("image/gif;", "image/gif"),
        ] as [(String, String?)])
    func mediaTypes(_ value: String, _ expected: String?) {
        #expect(UploadRules.mediaType(value) == expected)
    }

    @Test func extensionsAndIds() {
        #expect(UploadRules.fileExtension(for: "image/jpeg") == "jpg")
        #expect(UploadRules.fileExtension(for: "video/mp4") == "mp4")
        #expect(UploadRules.fileExtension(for: "application/x-tar+gzip") == "bin")
        #expect(UploadRules.isNumericId("1234567890123456789"))
        #expect(!UploadRules.isNumericId("12345678901234567890"), "20 digits")
        #expect(!UploadRules.isNumericId("") && !UploadRules.isNumericId("-1") && !UploadRules.isNumericId("１"))
    }
}
