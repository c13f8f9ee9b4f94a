import Crypto
import Foundation
import SigV4
import Synchronization
import Testing

@testable import Explain

/// Issue 19, point 23: the usual real cause of SignatureDoesNotMatch, a wrong server secret, and a key
/// holding a literal `%` (in-process; ExplainRGWTests reproduces both against RGW).
@Suite struct ExplainCredentialsTests {
    typealias T = SignatureExplainerTests

    /// RGW's SignatureDoesNotMatch: the code, an empty message, nothing else.
    static let rgwRefusal = StorageErrorReport(code: "SignatureDoesNotMatch", message: "")

    /// Explains client B's URL, as issued, with `storage` and a credentials check answering `check`;
    /// how many times the check was asked.
    static func explain(storage: StorageErrorReport?, check: CredentialsCheck, url: String = T.clientB())
        -> (SignatureExplanation, Int)
    {
        let asked = Mutex(0)
        let explanation = T.explainer().explain(
            ExplainInput(url: url, method: "PUT", headers: [("Content-Type", "image/jpeg")], storage: storage),
            now: T.issuedAt + 10,
            checkCredentials: {
                asked.withLock { $0 += 1 }
                return check
            })
        return (explanation, asked.withLock { $0 })
    }

    @Test("the URL is what the server signs, storage refuses the server's own HEAD: SECRET_KEY_MISMATCH")
    func wrongServerSecret() {
        let (explanation, asked) = Self.explain(
            storage: Self.rgwRefusal, check: .refused(status: 403, code: "SignatureDoesNotMatch"))
        #expect(asked == 1)
        #expect(T.codes(explanation) == [.secretKeyMismatch], "\(explanation.findings)")
        #expect(T.finding(explanation, .secretKeyMismatch)?.severity == .error)
        #expect(explanation.hasDifferences)
        #expect(!"\(explanation)".contains(T.secret))
    }

    @Test("storage accepts the server's credentials: a warning that the refused request was not this URL")
    func credentialsAccepted() {
        let (explanation, asked) = Self.explain(storage: Self.rgwRefusal, check: .accepted)
        #expect(asked == 1)
        #expect(T.codes(explanation) == [.credentialsAccepted])
        #expect(explanation.hasDifferences, "no longer 'no differences'")
    }

    @Test("storage cannot be asked: CREDENTIALS_UNCHECKED")
    func unchecked() {
        let (explanation, _) = Self.explain(storage: Self.rgwRefusal, check: .unavailable("connection refused"))
        #expect(T.codes(explanation) == [.credentialsUnchecked])
    }

    @Test("no check without SignatureDoesNotMatch, or when the URL itself differs")
    func checkedOnlyWhenTheURLMatches() {
        #expect(Self.explain(storage: nil, check: .accepted).1 == 0)
        #expect(Self.explain(storage: StorageErrorReport(code: "AccessDenied"), check: .accepted).1 == 0)
        let changed = T.clientB().replacingOccurrences(of: "X-Amz-Expires=900", with: "X-Amz-Expires=901")
        let (explanation, asked) = Self.explain(storage: Self.rgwRefusal, check: .accepted, url: changed)
        #expect(asked == 0)
        #expect(!T.codes(explanation).contains(.secretKeyMismatch))
    }

    @Test("AWS's XML with the server's own StringToSign and signature: SECRET_KEY_MISMATCH without asking")
    func awsStringToSign() throws {
        let url = T.clientB()
        let explained = T.explainer().explain(
            ExplainInput(url: url, method: "PUT", headers: [("Content-Type", "image/jpeg")]), now: T.issuedAt + 10)
        let stringToSign = try #require(explained.expected?.stringToSign)
        let signature = try #require(url.split(separator: "&").first { $0.hasPrefix("X-Amz-Signature=") })
            .dropFirst("X-Amz-Signature=".count)
        let aws = StorageErrorReport(
            code: "SignatureDoesNotMatch",
            message: "The request signature we calculated does not match the signature you provided.",
            stringToSign: stringToSign, accessKeyId: "AKIDEXPLAIN", signatureProvided: String(signature))
        let (explanation, asked) = Self.explain(storage: aws, check: .accepted)
        #expect(asked == 0)
        #expect(T.codes(explanation) == [.secretKeyMismatch], "\(explanation.findings)")
    }

    @Test("a key with a literal %25 and only the signature changed: no DOUBLE_ENCODED error")
    func literalPercentKey() {
        let url = try! T.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "explain/50%4F.jpg", expires: 600), now: T.issuedAt
        ).url
        #expect(url.contains("50%254F.jpg"))
        let asIssued = T.explainer().explain(ExplainInput(url: url, method: "PUT"), now: T.issuedAt + 10)
        #expect(asIssued.findings.isEmpty, "\(asIssued.findings)")
        // The last hex digit of the signature changed.
        let last = url.last!
        let tampered = String(url.dropLast()) + (last == "0" ? "1" : "0")
        let explanation = T.explainer().explain(ExplainInput(url: tampered, method: "PUT"), now: T.issuedAt + 10)
        #expect(T.codes(explanation).contains(.signatureMismatch))
        #expect(
            !explanation.findings.contains { $0.code == .doubleEncoded && $0.severity != .info },
            "\(explanation.findings)")
    }
}
