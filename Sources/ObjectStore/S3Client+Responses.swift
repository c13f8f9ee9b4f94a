import Crypto
import HTTPClient

extension S3Client {
    /// The error for an unexpected status, with S3's error code when the body has one.
    package static func statusError(_ response: HTTPResponse) -> ObjectStoreError {
        .status(response.status, code: S3XML.errorCode(response.body))
    }

    /// Size (the `Content-Range` total, else `Content-Length`), type and ETag of a HEAD or GET.
    static func objectInfo(from response: HTTPResponse) throws(ObjectStoreError) -> ObjectInfo {
        var size: Int64?
        if let range = response.header("Content-Range"), let slash = range.lastIndex(of: "/") {
            size = Int64(range[range.index(after: slash)...])
        }
        if size == nil, let length = response.header("Content-Length") { size = Int64(length) }
        guard let size, size >= 0 else { throw .malformedResponse("no object size (Content-Length) in the response") }
        guard let etag = response.header("ETag") else { throw .malformedResponse("no ETag in the response") }
        return ObjectInfo(
            size: size, contentType: response.header("Content-Type"), etag: unquote(etag),
            checksumSHA256: wholeObjectSHA256(response), encryption: encryption(response))
    }

    /// The `x-amz-checksum-sha256` of a response when it is the whole object's: the base64 of 32 bytes,
    /// not a multipart object's composite checksum (`…-N`, or `x-amz-checksum-type: COMPOSITE`).
    static func wholeObjectSHA256(_ response: HTTPResponse) -> String? {
        guard let header = response.header("x-amz-checksum-sha256") else { return nil }
        let value = Substring(header).trimmingASCIISpaces()
        guard !value.isEmpty else {
            return nil
        }
        if let type = response.header("x-amz-checksum-type"), type.uppercased() != "FULL_OBJECT" { return nil }
        guard Base64.decode(String(value))?.count == 32 else { return nil }
        return String(value)
    }

    /// The server-side encryption a response names: `x-amz-server-side-encryption`'s value, or `SSE-C`
    /// when a customer key encrypts the object.
    static func encryption(_ response: HTTPResponse) -> String? {
        if response.header("x-amz-server-side-encryption-customer-algorithm") != nil { return "SSE-C" }
        return response.header("x-amz-server-side-encryption").map { String(Substring($0).trimmingASCIISpaces()) }
    }

    /// An ETag without its surrounding quotes (and without a weak `W/` prefix).
    package static func unquote(_ etag: String) -> String {
        var text = Substring(etag).trimmingASCIISpaces()
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    /// Appends `text` URI-encoded as SigV4 and S3 want it: unreserved bytes kept, `/` kept when
    /// `keepingSlash`, every other byte as `%XX` (upper-case hex).
    static func appendURIEncoded(_ text: String, keepingSlash: Bool, to output: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0f)])
            }
        }
    }
}
