import Testing

@testable import Explain
@testable import SigV4

/// `presignd explain URL` without `--header` (issue 35): the headers the URL signs besides `host` are
/// named as ones the request must carry, with the signed value where the signature tells it, instead of
/// an answer with no difference.
struct SignedHeadersUncheckedTests {
    typealias Base = SignatureExplainerTests

    /// Client B's URL with a declared size: `content-length;content-type;host`.
    static func sized() -> String {
        try! Base.presigner().presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a", expires: 900,
                signedHeaders: [("Content-Type", "image/jpeg"), ("Content-Length", "1234")]), now: Base.issuedAt
        ).url
    }

    @Test("a size and a type signed, no headers given: both named, a warning (exit 1), the values unknown")
    func sizeAndType() throws {
        let explanation = Base.explainer().explain(ExplainInput(url: Self.sized()), now: Base.issuedAt + 5)
        let finding = try #require(Base.finding(explanation, .signedHeadersUnchecked))
        #expect(finding.field == "X-Amz-SignedHeaders")
        #expect(finding.expected == "content-length: the value issued; content-type: the value issued")
        #expect(finding.got == "no headers given")
        #expect(finding.severity == .warning)
        #expect(finding.hint.contains("the URL signs content-length, content-type besides host"))
        #expect(finding.hint.contains("--header 'Content-Length: …' --header 'Content-Type: …'"))
        #expect(explanation.hasDifferences)
        #expect(!explanation.signatureMatches && explanation.issuedByThisServer == nil)
    }

    @Test("the same URL with its headers given: checked, nothing unchecked, no difference")
    func headersGiven() {
        let explanation = Base.explainer().explain(
            ExplainInput(
                url: Self.sized(), method: "PUT", headers: [("Content-Type", "image/jpeg"), ("Content-Length", "1234")]),
            now: Base.issuedAt + 5)
        #expect(explanation.findings.isEmpty, "\(explanation.findings)")
        #expect(explanation.signatureMatches && !explanation.hasDifferences)
    }

    @Test("a URL that signs host only: nothing to name without headers")
    func hostOnly() {
        let explanation = Base.explainer().explain(ExplainInput(url: Base.clientP(), method: "PUT"), now: Base.issuedAt)
        #expect(Base.finding(explanation, .signedHeadersUnchecked) == nil)
        #expect(!explanation.hasDifferences)
    }

    @Test("header names as clients write them")
    func displayNames() {
        #expect(ExplainRun.displayName("content-type") == "Content-Type")
        #expect(ExplainRun.displayName("x-amz-checksum-sha256") == "X-Amz-Checksum-Sha256")
        #expect(ExplainRun.displayName("host") == "Host")
    }
}
