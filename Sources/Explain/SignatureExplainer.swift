import Crypto
import SigV4
import System

/// Explains why storage refused a presigned URL: recomputes what the server signs for the URL's own
/// parameters (`X-Amz-Date`, `X-Amz-Expires`, `X-Amz-SignedHeaders`, key, host) with the server's
/// credentials, and names, field by field, where the client's request differs.
///
/// Pure: the time comes in as a parameter, the signer through a closure (a fixed `Presigner`, or a
/// rotating one's `current`). Two kinds of finding come out: rules checked on the URL alone (a
/// missing or added parameter, `%252F`, an expired URL, a future date, a foreign host or credential
/// scope), and causes confirmed by the signature: the readings of the URL a client's mistakes
/// would explain (undo a second encoding, the server's own host or addressing style, another method,
/// another signed `Content-Type`, the issued parameters only) are signed in turn, fewest changes
/// first, and the first whose signature is the URL's tells which changes broke it.
public struct SignatureExplainer: Sendable {
    /// The signer whose credentials, region and endpoint the URL is checked against.
    public let signer: @Sendable () -> Presigner
    /// The bucket the server issues URLs for.
    public let bucket: String
    /// Content types the server signs (tried when `content-type` is signed and the client's differs).
    public let contentTypes: [String]
    /// Lifetimes the server gives URLs (tried when `X-Amz-Expires` is missing).
    public let expiries: [Int]
    /// How far `X-Amz-Date` may be ahead of the clock before it is an error rather than a warning
    /// (S3's tolerance is 15 minutes).
    public let maxSkewSeconds: Int64
    /// The most readings signed per explanation (each is one SHA-256 and one HMAC).
    public let maxCandidates: Int

    /// An explainer for URLs issued by `signer` for `bucket`.
    public init(
        signer: @escaping @Sendable () -> Presigner, bucket: String, contentTypes: [String] = [],
        expiries: [Int] = [], maxSkewSeconds: Int64 = 900, maxCandidates: Int = 4096
    ) {
        self.signer = signer
        self.bucket = bucket
        var seenTypes: Set<String> = []
        self.contentTypes = contentTypes.filter { seenTypes.insert($0).inserted }
        var seenExpiries: Set<Int> = []
        self.expiries = expiries.filter { (1...604_800).contains($0) && seenExpiries.insert($0).inserted }
        self.maxSkewSeconds = maxSkewSeconds
        self.maxCandidates = maxCandidates
    }

    /// The parameters the server writes, in its order (extra parameters such as `partNumber` and
    /// `uploadId` come before them).
    static let issuedOrder = [
        "X-Amz-Algorithm", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Expires",
        "X-Amz-Security-Token", "X-Amz-Signature",
    ]
    /// Extra parameters the server issues (multipart part URLs).
    static let issuedExtras: Set<String> = ["partNumber", "uploadId"]

    /// Explains `input` at `now` (epoch seconds).
    ///
    /// `checkCredentials` asks storage to take a request signed with the server's own credentials; it
    /// is called only when the URL is exactly what the server signs and storage answered
    /// `SignatureDoesNotMatch` (the cause then lies in the credentials, not in the URL).
    public func explain(
        _ input: ExplainInput, now: Int64, checkCredentials: (() -> CredentialsCheck)? = nil
    ) -> SignatureExplanation {
        let presigner = signer()
        guard let url = RequestURL(input.url) else {
            return SignatureExplanation(
                findings: [
                    ExplainFinding(
                        .malformedURL, field: "url", expected: "http(s)://host/path?query", got: nil,
                        hint: "pass the whole URL the client requested, scheme and host included", severity: .error)
                ], signatureMatches: false, issuedByThisServer: nil, expected: nil, storageCode: input.storage?.code)
        }
        var run = ExplainRun(
            explainer: self, presigner: presigner, url: url, input: input, now: now, checkCredentials: checkCredentials)
        return run.explain()
    }

    /// `epochSeconds`, clamped to 1970...9999, as `YYYY-MM-DDTHH:MM:SSZ`.
    static func iso8601(_ epochSeconds: Int64) -> String {
        ISO8601Timestamp.string(epochSeconds: min(max(epochSeconds, 0), AmzDate.maximumEpochSeconds))
    }

    /// `text` with the value after `X-Amz-Security-Token=` replaced by `<redacted>`.
    static func redactingToken(_ text: String) -> String {
        let marker = Array("X-Amz-Security-Token=".utf8)
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == marker[0], bytes.count - index >= marker.count,
                bytes[index..<(index + marker.count)].elementsEqual(marker)
            {
                output.append(contentsOf: marker)
                output.append(contentsOf: Array("<redacted>".utf8))
                index += marker.count
                while index < bytes.count && bytes[index] != UInt8(ascii: "&") && bytes[index] != UInt8(ascii: "\n") {
                    index += 1
                }
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
