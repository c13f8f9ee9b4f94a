import Foundation
import HTTPClient

/// One HTTP/1.1 response as it went over the wire (from a socket, or from the in-process client's
/// bytes): the HTTP client's response type (status, header fields in order, body), with the readers
/// the tests use.
public typealias WireResponse = HTTPResponse

extension HTTPResponse {
    /// The body as a string.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// What `parse` found at the start of its input.
    public enum Parsed: Sendable {
        /// A whole response (an interim 1xx too), and how many bytes it took.
        case response(WireResponse, consumed: Int)
        /// The input ends inside a response.
        case incomplete
        /// The status line is not one.
        case invalid
    }

    /// Reads the response at the start of `bytes` (framed by `Content-Length`; `isHead`: an answer to
    /// HEAD, whose body is not sent).
    public static func parse(_ bytes: ArraySlice<UInt8>, isHead: Bool = false) -> Parsed {
        guard let end = headEnd(bytes) else { return .incomplete }
        let headText = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return .invalid }
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            )
        }
        var length = 0
        if !isHead && status != 204 && status != 304 && status >= 200,
            let field = headers.first(where: { $0.name.lowercased() == "content-length" }), let n = Int(field.value)
        {
            length = n
        }
        let total = end + 4 + length
        guard bytes.endIndex >= total else { return .incomplete }
        return .response(
            WireResponse(status: status, headers: headers, body: Array(bytes[(end + 4)..<total])),
            consumed: total - bytes.startIndex)
    }

    /// Every final response in `bytes`, in order (interim 1xx answers skipped); `isHead` as in `parse`
    /// for each of them in turn.
    public static func all(in bytes: [UInt8], isHead: [Bool] = []) -> [WireResponse] {
        var rest = bytes[...]
        var found: [WireResponse] = []
        while !rest.isEmpty,
            case .response(let r, let consumed) = parse(rest, isHead: isHead.dropFirst(found.count).first ?? false)
        {
            rest = rest.dropFirst(consumed)
            if r.status >= 200 { found.append(r) }
        }
        return found
    }

    /// Whether `request` (the bytes of a request) is a HEAD request, whose answer has no body.
    public static func isHeadRequest(_ request: [UInt8]) -> Bool { request.starts(with: Array("HEAD ".utf8)) }

    /// The index of the first `\r\n\r\n` in `bytes`.
    private static func headEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = bytes.startIndex
        while i + 3 < bytes.endIndex {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }
}
