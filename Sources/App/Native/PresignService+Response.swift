import HTTPServer
import JSON
import SigV4
import Uploads

extension PresignService {
    /// The 200 answer of both issue routes: client P reads `presignedUrl`, client B `signedUrl` (present
    /// when `imageKey` is given); both get the key, the method, the headers to send and the expiry.
    ///
    /// The body is written by fragments into one buffer sized in advance: the member names are literals,
    /// only the URL, the keys and the header values are escaped.
    static func issued(_ issued: IssuedURL) -> Response {
        let url = issued.presigned.url
        let key = issued.key
        let imageKey = issued.imageKey
        var capacity = 160 + url.utf8.count + key.utf8.count
        if let imageKey { capacity += url.utf8.count + imageKey.utf8.count + 32 }
        for h in issued.presigned.headers { capacity += h.name.utf8.count + h.value.utf8.count + 6 }
        var body: [UInt8] = []
        body.reserveCapacity(capacity)
        if imageKey != nil {
            JSONWriter.appendLiteral(#"{"signedUrl":"#, to: &body)
            JSONWriter.appendQuoted(url, to: &body)
            JSONWriter.appendLiteral(#","presignedUrl":"#, to: &body)
        } else {
            JSONWriter.appendLiteral(#"{"presignedUrl":"#, to: &body)
        }
        JSONWriter.appendQuoted(url, to: &body)
        JSONWriter.appendLiteral(#","key":"#, to: &body)
        JSONWriter.appendQuoted(key, to: &body)
        if let imageKey {
            JSONWriter.appendLiteral(#","imageKey":"#, to: &body)
            JSONWriter.appendQuoted(imageKey, to: &body)
        }
        JSONWriter.appendLiteral(#","method":"PUT","headers":{"#, to: &body)
        for (index, h) in issued.presigned.headers.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONWriter.appendQuoted(h.name, to: &body)
            body.append(UInt8(ascii: ":"))
            JSONWriter.appendQuoted(h.value, to: &body)
        }
        JSONWriter.appendLiteral(#"},"expiresAt":"#, to: &body)
        Timestamp.appendQuotedISO8601(millis: issued.expiresAtMs, to: &body)
        body.append(UInt8(ascii: "}"))
        return Response(status: 200, headers: APIError.jsonNoStoreHeaders, body: body)
    }
}
