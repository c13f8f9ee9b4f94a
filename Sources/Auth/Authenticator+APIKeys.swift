import Crypto

extension Authenticator {
    /// The API-key caller whose key is `presented`, or `unknownAPIKey`.
    ///
    /// The presented key is hashed with SHA-256 and the digest compared with every configured
    /// digest, each in constant time and without stopping at a match, so neither the position of
    /// a match nor the bytes of a near miss change the running time. Comparing digests (always 32
    /// bytes) instead of keys also hides the configured keys' lengths.
    func verifyAPIKey(_ presented: [UInt8]) -> Result<Principal, AuthFailure> {
        guard !presented.isEmpty else { return .failure(AuthFailure(.malformedAuthorization)) }
        guard presented.count <= settings.maxTokenBytes else {
            return .failure(AuthFailure(.tokenTooLarge(bytes: presented.count, limit: settings.maxTokenBytes)))
        }
        let digest = SHA256.hash(presented)
        var match = 0  // 1 + the index of the matching key; 0 for none
        for (index, key) in settings.apiKeys.enumerated() {
            let equal = compareDigests(digest, key.sha256)
            match = equal ? index + 1 : match
        }
        guard match > 0 else { return .failure(AuthFailure(.unknownAPIKey)) }
        return .success(Principal(subject: settings.apiKeys[match - 1].id, kind: .apiKey))
    }

    /// `ConstantTime.equals` over the two digests' bytes.
    @Sendable static func constantTimeEquals(_ lhs: SHA256Digest, _ rhs: SHA256Digest) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equals(left, right) } }
    }
}
