import Crypto
import HTTPClient
import SigV4

extension S3Client {
    /// HeadObject asking for the store's checksums (`x-amz-checksum-mode: ENABLED`): as `head(key:)`,
    /// with the whole object's SHA-256 in `ObjectInfo.checksumSHA256` when the store kept one (AWS S3 and
    /// MinIO do for an upload that sent `x-amz-checksum-sha256`; Ceph RGW 16 keeps none). Nil when there
    /// is no such key.
    public func headWithChecksums(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try perform("HEAD", key: key, headers: [("x-amz-checksum-mode", "ENABLED")]) {
            (response) throws(ObjectStoreError) -> ObjectInfo? in
            switch response.status {
            case 200: return try Self.objectInfo(from: response)
            case 404: return nil
            default: throw Self.statusError(response)
            }
        }
    }

    /// The SHA-256 and MD5 of the object under `key`, read whole from storage by one GET whose body is
    /// hashed as it arrives (`HTTPClient.stream`: memory stays at one read buffer whatever the object's
    /// size). With `etag`, only while the object is still that one (`If-Match`: an object written over
    /// since answers 412, `.status(412, code: "PreconditionFailed")`). Nil when there is no such key.
    ///
    /// Retried like every call (a retry starts over, with new hashers); a stall of `requestTimeoutMs`
    /// between two reads fails the attempt, the body's total time does not.
    public func digests(key: String, ifMatch etag: String? = nil) throws(ObjectStoreError) -> ObjectDigests? {
        var headers: [(name: String, value: String)] = []
        if let etag { headers.append(("If-Match", "\"\(etag)\"")) }
        return try retrying { () throws(ObjectStoreError) -> ObjectDigests? in
            let signed: SignedRequest
            do throws(SigV4Error) {
                signed = try signer.signHeaders(
                    method: "GET", bucket: options.bucket, key: key, query: [], headers: headers, payloadHash: nil,
                    now: now())
            } catch {
                throw ObjectStoreError.signing(String(describing: error))
            }
            var sha256 = SHA256()
            let md5 = MD5Hasher()
            var size: Int64 = 0
            let response: HTTPResponse
            do throws(HTTPClientError) {
                response = try http.stream(
                    HTTPRequest(method: "GET", target: signed.target, headers: signed.headers),
                    to: address(of: signed)
                ) { bytes in
                    sha256.update(bytes)
                    md5.update(bytes)
                    size += Int64(bytes.count)
                }
            } catch {
                throw ObjectStoreError(error)
            }
            switch response.status {
            case 200:
                return ObjectDigests(sha256: Array(sha256.finalize().bytes), md5: md5.finalize(), size: size)
            case 404: return nil
            default: throw Self.statusError(response)
            }
        }
    }
}
