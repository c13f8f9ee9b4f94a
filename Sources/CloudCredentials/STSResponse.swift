import HTTPClient
import ObjectStore
import SigV4

/// Reads STS's XML answers to `AssumeRoleWithWebIdentity`. Pure.
///
/// Success: `AssumeRoleWithWebIdentityResponse/AssumeRoleWithWebIdentityResult/Credentials` with
/// `AccessKeyId`, `SecretAccessKey`, `SessionToken` and `Expiration`. Failure:
/// `ErrorResponse/Error` with `Code` and `Message`.
enum STSResponse {
    /// The credentials of a 200 answer.
    static func credentials(_ body: [UInt8], provider: String, now: Int64) throws(CredentialsError) -> Credentials {
        guard S3XML.rootElementName(body) == "AssumeRoleWithWebIdentityResponse" else {
            throw .malformedResponse(provider: provider, reason: "not an AssumeRoleWithWebIdentityResponse document")
        }
        guard let result = innerBytes(of: "AssumeRoleWithWebIdentityResult", in: body[...]),
            let credentials = innerBytes(of: "Credentials", in: result)
        else {
            throw .malformedResponse(
                provider: provider, reason: "no AssumeRoleWithWebIdentityResult/Credentials element")
        }
        let element = Array(credentials)
        let fields = CredentialFields(
            accessKeyId: S3XML.firstElementText("AccessKeyId", in: element),
            secretAccessKey: S3XML.firstElementText("SecretAccessKey", in: element),
            sessionToken: S3XML.firstElementText("SessionToken", in: element),
            expiration: S3XML.firstElementText("Expiration", in: element))
        return try fields.credentials(provider: provider, now: now)
    }

    /// `Code` and `Message` of an `ErrorResponse/Error` answer, each nil when absent.
    static func error(_ body: [UInt8]) -> (code: String?, message: String?) {
        guard S3XML.rootElementName(body) == "ErrorResponse", let error = innerBytes(of: "Error", in: body[...]) else {
            return (nil, nil)
        }
        let element = Array(error)
        var code = S3XML.firstElementText("Code", in: element)
        if let text = code, text.isEmpty || text.utf8.count > 64 || !text.utf8.allSatisfy(isCodeCharacter) {
            code = nil
        }
        return (code, S3XML.firstElementText("Message", in: element))
    }

    /// The bytes between `<name ...>` and the first `</name>` after it; nil when absent or unclosed.
    static func innerBytes(of name: String, in body: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let open = Array("<\(name)".utf8)
        let close = Array("</\(name)>".utf8)
        var from = body.startIndex
        while let start = find(open, in: body, from: from) {
            var cursor = start + open.count
            guard cursor < body.endIndex else { return nil }
            let next = body[cursor]
            if next == UInt8(ascii: ">") || next == UInt8(ascii: " ") || next == UInt8(ascii: "\t")
                || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r")
            {
                while cursor < body.endIndex, body[cursor] != UInt8(ascii: ">") { cursor += 1 }
                guard cursor < body.endIndex, body[cursor - 1] != UInt8(ascii: "/") else { return nil }
                guard let end = find(close, in: body, from: cursor + 1) else { return nil }
                return body[(cursor + 1)..<end]
            }
            from = start + 1
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>, from: Int) -> Int? {
        guard haystack.endIndex - from >= needle.count else { return nil }
        var start = from
        while start <= haystack.endIndex - needle.count {
            if haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return start
            }
            start += 1
        }
        return nil
    }

    /// Letters, digits, `.`, `_`, `-` and `:`: what an error code is made of.
    private static func isCodeCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ":")
    }
}
