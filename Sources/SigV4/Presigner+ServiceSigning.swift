extension Presigner {
    /// Signs a call to the endpoint's own path `/` with an `Authorization` header: a service request that
    /// names no bucket (Ceph RGW's SNS-compatible topic API, `POST /` with `Action=CreateTopic`).
    ///
    /// Signed as `signHeaders` signs (host, `x-amz-date`, `x-amz-content-sha256`, the session token, every
    /// header in `headers`), with this presigner's region and service in the scope.
    public func signServiceRequest(
        method: String, headers: [(name: String, value: String)] = [], payloadHash: String? = nil, now: Int64
    ) throws(SigV4Error) -> SignedRequest {
        try signHeaders(
            method: method, bucket: "", key: "", query: [], headers: headers, payloadHash: payloadHash, now: now,
            root: true, inspect: nil)
    }
}

extension RotatingPresigner {
    /// `Presigner.signServiceRequest` with the current credentials; refused once they have expired.
    public func signServiceRequest(
        method: String, headers: [(name: String, value: String)] = [], payloadHash: String? = nil, now: Int64
    ) throws(SigV4Error) -> SignedRequest {
        let presigner = current
        if let expiration = presigner.credentialsExpiration, now >= expiration {
            throw .credentialsExpiring(secondsLeft: 0)
        }
        return try presigner.signServiceRequest(method: method, headers: headers, payloadHash: payloadHash, now: now)
    }
}
