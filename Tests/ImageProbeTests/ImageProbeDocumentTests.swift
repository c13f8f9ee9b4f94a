import ImageProbe
import Testing

/// A fixed pseudo-random byte sequence (SplitMix64, seed given), so "random bytes" is the same every run.
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
}

@Suite("ImageProbe: lies (documents labelled image/jpeg)")
struct ImageProbeDocumentTests {
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    static let vectors: [Vector] = [
        Vector(name: "empty", bytes: [], expected: .notImage(.empty)),
        Vector(
            name: "HTML5 doctype", bytes: ascii("<!DOCTYPE html>\n<html><body>hi</body></html>"),
            expected: .notImage(.markup(.html))),
        Vector(
            name: "lower-case doctype after white space", bytes: ascii(" \r\n\t<!doctype html>"),
            expected: .notImage(.markup(.html))),
        Vector(
            name: "<HTML> after a UTF-8 BOM", bytes: bom + ascii("<HTML><HEAD>"), expected: .notImage(.markup(.html))),
        Vector(
            name: "a bare script", bytes: ascii("<script>alert(document.cookie)</script>"),
            expected: .notImage(.markup(.html))),
        Vector(name: "an iframe", bytes: ascii("<iframe src=//evil>"), expected: .notImage(.markup(.html))),
        Vector(name: "a comment then <p>", bytes: ascii("<!-- x --><p>text"), expected: .notImage(.markup(.html))),
        Vector(name: "<a href>", bytes: ascii("<a href=\"x\">"), expected: .notImage(.markup(.html))),
        Vector(
            name: "XHTML: XML declaration then html",
            bytes: ascii("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"),
            expected: .notImage(.markup(.html))),
        Vector(
            name: "SVG root", bytes: ascii("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>"),
            expected: .notImage(.markup(.svg))),
        Vector(
            name: "SVG after an XML declaration, doctype and comment",
            bytes: ascii(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\">\n<svg>"
            ),
            expected: .notImage(.markup(.svg))),
        Vector(
            name: "SVG with a namespace prefix", bytes: ascii("<?xml version=\"1.0\"?><svg:svg xmlns:svg=\"x\">"),
            expected: .notImage(.markup(.svg))),
        Vector(
            name: "SVG in upper case after a BOM", bytes: bom + ascii("\n<SVG>"), expected: .notImage(.markup(.svg))),
        Vector(
            name: "XML (RSS)", bytes: ascii("<?xml version=\"1.0\"?><rss version=\"2.0\">"),
            expected: .notImage(.markup(.xml))),
        Vector(
            name: "XML declaration only", bytes: ascii("<?xml version=\"1.0\"?>"), expected: .notImage(.markup(.xml))),
        Vector(name: "unknown element", bytes: ascii("<foo>bar</foo>"), expected: .notImage(.markup(.other))),
        Vector(name: "a lone <", bytes: ascii("<"), expected: .notImage(.markup(.other))),
        Vector(name: "an unterminated comment", bytes: ascii("<!-- <svg>"), expected: .notImage(.markup(.other))),
        Vector(name: "PDF", bytes: ascii("%PDF-1.7\n%\u{00E2}\u{00E3}\n1 0 obj"), expected: .notImage(.pdf)),
        Vector(
            name: "ZIP local header", bytes: [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00], expected: .notImage(.zip)
        ),
        Vector(
            name: "empty ZIP", bytes: [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18),
            expected: .notImage(.zip)),
        Vector(name: "plain text", bytes: ascii("hello, this is not a picture\n"), expected: .notImage(.text)),
        Vector(name: "JSON", bytes: ascii("{\"image\": \"no\"}"), expected: .notImage(.text)),
        Vector(name: "UTF-8 text", bytes: ascii("사진이 아닙니다"), expected: .notImage(.text)),
        Vector(
            name: "UTF-16 text with a BOM", bytes: [0xFF, 0xFE, 0x3C, 0x00, 0x68, 0x00], expected: .notImage(.text)),
        Vector(name: "white space only", bytes: ascii("  \n"), expected: .notImage(.text)),
        Vector(
            name: "ELF executable",
            bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 8),
            expected: .notImage(.unknownSignature)),
        Vector(
            name: "PE executable", bytes: [0x4D, 0x5A, 0x90, 0x00, 0x03, 0x00], expected: .notImage(.unknownSignature)),
        Vector(name: "gzip (an SVGZ)", bytes: [0x1F, 0x8B, 0x08, 0x00], expected: .notImage(.unknownSignature)),
        Vector(
            name: "BMP (not allowed)", bytes: ascii("BM") + le(70, 4) + [0, 0, 0, 0] + le(54, 4),
            expected: .notImage(.unknownSignature)),
        Vector(
            name: "4096 pseudo-random bytes (SplitMix64, seed 11)", bytes: pseudoRandomBytes(4096, seed: 11),
            expected: .notImage(.unknownSignature)),
    ]

    @Test("refusals", arguments: vectors)
    func refusals(vector: Vector) {
        #expect(checkInvariants(vector.bytes) == vector.expected)
    }

    @Test("every refusal has a code and a message that does not echo the input")
    func messages() {
        let refusals: [ImageRefusal] =
            [
                .empty, .unknownSignature, .text, .pdf, .zip, .truncated(nil), .truncated(.png),
                .malformed(nil, .boxSize),
            ]
            + ImageRefusal.MarkupKind.allCases.map { .markup($0) } + [.malformed(.jpeg, .unexpectedMarker(0xDA))]
        let codes = Set(refusals.map(\.code))
        #expect(
            codes == [
                "empty", "unknown_signature", "text", "pdf", "zip", "truncated", "malformed", "html", "svg", "xml",
                "markup",
            ])
        for refusal in refusals { #expect(!refusal.message.isEmpty && !refusal.message.contains("<")) }
        #expect(ImageRefusal.malformed(.jpeg, .unexpectedMarker(0xDA)).message.hasSuffix("unexpected marker 0xDA"))
    }

    @Test("text is told from binary within the text window only")
    func textWindow() {
        let bytes = ascii(String(repeating: "a", count: 2000)) + [0x00]
        #expect(ImageProbe.inspect(bytes) == .notImage(.text))
        #expect(ImageProbe.inspect(bytes, limits: ImageProbeLimits(textWindow: 4096)) == .notImage(.unknownSignature))
    }

    @Test("formats and their media types")
    func mediaTypes() {
        let types = ImageFormat.allCases.map(\.mimeType)
        #expect(
            types == ["image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif"])
    }
}
