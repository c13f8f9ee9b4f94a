import HTTPClient
import SigV4

extension S3Client {
    /// The object under `key` read whole by one GET, each piece handed to `sink` as it arrives
    /// (`HTTPClient.stream`: memory stays at one read buffer whatever the object's size), while it is still
    /// the object of `ifMatch` when given (else `.status(412, …)`). Its size, or nil when there is no such
    /// key.
    ///
    /// Not retried: what reached `sink` cannot be taken back, so a failed read is the caller's to start
    /// over (the malware scan starts a new scan). An error `sink` throws stops the read and is thrown.
    public func read(
        key: String, ifMatch etag: String?, into sink: (UnsafeRawBufferPointer) throws(ObjectStoreError) -> Void
    ) throws(ObjectStoreError) -> Int64? {
        var headers: [(name: String, value: String)] = []
        if let etag { headers.append(("If-Match", "\"\(etag)\"")) }
        let signed: SignedRequest
        do throws(SigV4Error) {
            signed = try signer.signHeaders(
                method: "GET", bucket: options.bucket, key: key, query: [], headers: headers, payloadHash: nil,
                now: now())
        } catch {
            throw ObjectStoreError.signing(String(describing: error))
        }
        var size: Int64 = 0
        var stopped: ObjectStoreError?
        let response: HTTPResponse
        do throws(HTTPClientError) {
            response = try http.stream(
                HTTPRequest(method: "GET", target: signed.target, headers: signed.headers), to: address(of: signed)
            ) { (bytes) throws(HTTPClientError) in
                do throws(ObjectStoreError) {
                    try sink(bytes)
                } catch {
                    stopped = error
                    throw .connection("the reader stopped: \(error)")
                }
                size += Int64(bytes.count)
            }
        } catch {
            throw stopped ?? ObjectStoreError(error)
        }
        switch response.status {
        case 200: return size
        case 404: return nil
        default: throw Self.statusError(response)
        }
    }
}
