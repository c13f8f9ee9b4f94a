import Synchronization

/// The presigner in use, replaced whole when temporary credentials rotate.
///
/// A request takes `current` once and signs everything with that instance, so a URL's access key,
/// session token and signature always come from one set of credentials, even while another thread
/// rotates. Reading holds a `Mutex` only to copy a reference; the new instance is built before the
/// lock is taken, and its signing key is derived on its first use (four HMACs).
///
/// The signing methods here (`presign`, `presignUploadPart`, `presignPost`, `signHeaders`) take
/// `current` once and clamp the lifetime to the credentials (`Presigner+Lifetime.swift`): callers
/// that go through them never issue a URL that outlives its credentials.
public final class RotatingPresigner: Sendable {
    /// The presigner and how many rotations led to it.
    private let state: Mutex<(presigner: Presigner, generation: Int)>
    /// The shortest URL lifetime worth issuing when the credentials' remaining life shortens a URL,
    /// in seconds: below it, signing fails with `credentialsExpiring`.
    public let minimumLifetimeSeconds: Int
    /// URLs refused because the credentials had less than `minimumLifetimeSeconds` left (a metric).
    let refusals = Atomic<Int>(0)

    /// A holder starting with `presigner` (generation 0); a URL shortened by its credentials must
    /// still live `minimumLifetimeSeconds` (at least 1).
    public init(_ presigner: Presigner, minimumLifetimeSeconds: Int = 60) {
        state = Mutex((presigner, 0))
        self.minimumLifetimeSeconds = max(1, minimumLifetimeSeconds)
    }

    /// The presigner to sign with now.
    public var current: Presigner { state.withLock { $0.presigner } }

    /// Rotations so far.
    public var generation: Int { state.withLock { $0.generation } }

    /// Signing requests refused for want of credential lifetime so far.
    public var refusalCount: Int { refusals.load(ordering: .relaxed) }

    /// Replaces the presigner with one for `credentials` (same region, service, endpoint and
    /// addressing); on an error the current one stays.
    public func rotate(to credentials: Credentials) throws(SigV4Error) {
        let next = try current.withCredentials(credentials)
        state.withLock { state in
            state.presigner = next
            state.generation += 1
        }
    }

    /// The lifetime to sign `requested` seconds with at `now` on `presigner`: `requested`, or the
    /// credentials' remaining life when that is shorter and still at least `minimumLifetimeSeconds`.
    func lifetime(_ requested: Int, on presigner: Presigner, now: Int64) throws(SigV4Error) -> Int {
        guard let expiration = presigner.credentialsExpiration else { return requested }
        let left = expiration - now
        if left >= Int64(requested) { return requested }
        guard left >= Int64(minimumLifetimeSeconds) else {
            refusals.add(1, ordering: .relaxed)
            throw .credentialsExpiring(secondsLeft: Int(max(0, left)))
        }
        return Int(left)
    }

    /// `Presigner.presign` with the current credentials, its lifetime clamped to theirs (the
    /// answer's `expiresAt` and `X-Amz-Expires` say the clamped value).
    public func presign(_ request: PresignRequest, now: Int64) throws(SigV4Error) -> PresignedURL {
        let presigner = current
        guard presigner.credentialsExpiration != nil else { return try presigner.presign(request, now: now) }
        var clamped = request
        clamped.expires = try lifetime(request.expires, on: presigner, now: now)
        return try presigner.presign(clamped, now: now)
    }

    /// `Presigner.presignUploadPart` with the current credentials, its lifetime clamped to theirs.
    public func presignUploadPart(
        bucket: String, key: String, uploadId: String, partNumber: Int, expires: Int, now: Int64
    ) throws(SigV4Error) -> PresignedURL {
        let presigner = current
        return try presigner.presignUploadPart(
            bucket: bucket, key: key, uploadId: uploadId, partNumber: partNumber,
            expires: try lifetime(expires, on: presigner, now: now), now: now)
    }

    /// `Presigner.presignPost` with the current credentials, its lifetime clamped to theirs.
    public func presignPost(_ request: PresignPostRequest, now: Int64) throws(SigV4Error) -> PresignedPost {
        let presigner = current
        var clamped = request
        clamped.expires = try lifetime(request.expires, on: presigner, now: now)
        return try presigner.presignPost(clamped, now: now)
    }

    /// `Presigner.signHeaders` with the current credentials; refused once they have expired.
    public func signHeaders(
        method: String, bucket: String, key: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], payloadHash: String? = nil, now: Int64
    ) throws(SigV4Error) -> SignedRequest {
        let presigner = current
        if let expiration = presigner.credentialsExpiration, now >= expiration {
            throw .credentialsExpiring(secondsLeft: 0)
        }
        return try presigner.signHeaders(
            method: method, bucket: bucket, key: key, query: query, headers: headers, payloadHash: payloadHash,
            now: now)
    }
}
