import SigV4

/// The explainer's answer: what the server signs for a URL, and where the client's request differs.
///
/// It never holds a secret key, a signing key, a signature the server computed, or the server's
/// session token: only whether the URL's own signature matches, and the canonical request and string
/// to sign (the token in them shown as `<redacted>`).
public struct SignatureExplanation: Sendable {
    /// What the server signs for the URL (the reading of it that matched, or the repaired one).
    public struct Expected: Sendable, Equatable {
        /// The method signed.
        public var method: String
        /// True when the caller gave no method and the one above was assumed or found.
        public var methodAssumed: Bool
        /// The `Host` signed: `host[:port]`, with the bucket in front when virtual-hosted.
        public var host: String
        /// `path` or `virtual`.
        public var addressing: String
        /// The bucket.
        public var bucket: String
        /// The object key (decoded).
        public var key: String
        /// The signed headers and their values (nil when not known), `host` included.
        public var signedHeaders: [SignedHeader]
        /// The query parameter names in the order the server writes them.
        public var parameters: [String]
        /// `X-Amz-Date` as ISO 8601, when it parses.
        public var validFrom: String?
        /// `X-Amz-Date` + `X-Amz-Expires` as ISO 8601, when both parse.
        public var expiresAt: String?
        /// SigV4 task 1, as the server computes it (session token redacted).
        public var canonicalRequest: String
        /// SigV4 task 2, as the server computes it.
        public var stringToSign: String
    }

    /// A signed header and the value signed, when known.
    public struct SignedHeader: Sendable, Equatable {
        /// The lower-case name.
        public var name: String
        /// The value, nil when neither the client's headers nor the server's candidates gave one
        /// that matches.
        public var value: String?
    }

    /// Every difference found, causes first.
    public var findings: [ExplainFinding]
    /// True when the URL's signature is the server's for the request exactly as the client sent it.
    public var signatureMatches: Bool
    /// True when some reading of the URL (as sent, or repaired as the findings say) gives the URL's
    /// signature with the server's credentials: this server issued it. False when none does; nil when
    /// it cannot be told (no signature or date, or a signed header value unknown).
    public var issuedByThisServer: Bool?
    /// What the server signs; nil when the URL does not parse or has no usable date.
    public var expected: Expected?
    /// Storage's error code, when its error XML was given.
    public var storageCode: String?

    /// True when any finding is an error or a warning (info findings are harmless).
    public var hasDifferences: Bool { findings.contains { $0.severity != .info } }
}
