import Testing

@testable import ObjectStore

/// Reading S3's XML answers (bodies as documented in the Amazon S3 API Reference, "Error
/// responses" and "CopyObject", and as Ceph RGW sends them).
@Suite struct S3XMLTests {
    static let errorBody = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message>\
        <StringToSign>AWS4-HMAC-SHA256...</StringToSign><SignatureProvided>abc</SignatureProvided></Error>
        """
    static let copyBody = """
        <?xml version="1.0" encoding="UTF-8"?>
        <CopyObjectResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\
        <LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>\
        </CopyObjectResult>
        """

    @Test func errorCodeOfAnErrorBody() {
        #expect(S3XML.errorCode(Array(Self.errorBody.utf8)) == "SignatureDoesNotMatch")
        #expect(S3XML.rootElementName(Array(Self.errorBody.utf8)) == "Error")
    }

    @Test func noErrorCodeOutsideAnErrorRoot() {
        #expect(S3XML.errorCode(Array(Self.copyBody.utf8)) == nil)
        #expect(S3XML.errorCode(Array("<Other><Code>X</Code></Other>".utf8)) == nil)
        #expect(S3XML.errorCode(Array("not xml".utf8)) == nil)
        #expect(S3XML.errorCode([]) == nil)
        // A code that is not a short token is not trusted into an error value.
        #expect(S3XML.errorCode(Array("<Error><Code>a b</Code></Error>".utf8)) == nil)
    }

    @Test func copyResultETagIsDecoded() {
        let body = Array(Self.copyBody.utf8)
        #expect(S3XML.rootElementName(body) == "CopyObjectResult")
        #expect(S3XML.firstElementText("ETag", in: body) == "\"9b2cf535f27731c974343645a3985328\"")
        #expect(S3XML.firstElementText("Missing", in: body) == nil)
    }

    /// (source, escaped, decoded): XML 1.0 section 4.6 predefined entities and section 4.1 references.
    static let entities: [(String, String, String)] = [
        ("XML 4.6", "&lt;a&gt; &amp; &apos;b&apos; &quot;c&quot;", "<a> & 'b' \"c\""),
        ("XML 4.1 decimal", "&#34;x&#34;", "\"x\""),
        ("XML 4.1 hex", "&#x22;&#xe9;", "\"é"),
        ("unknown entity kept", "&nope; &", "&nope; &"),
    ]

    @Test(arguments: 0..<entities.count)
    func decodesEntities(_ index: Int) {
        let (source, escaped, decoded) = Self.entities[index]
        #expect(S3XML.decodeEntities(Array(escaped.utf8)[...]) == decoded, "\(source)")
    }

    @Test func rootSkipsDeclarationAndComments() {
        #expect(S3XML.rootElementName(Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<Error/>".utf8)) == "Error")
    }
}
