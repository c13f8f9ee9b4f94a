/// Cached `HTTP/1.1 <code> <reason>\r\n` lines (built once, so a response does not format its status).
public enum StatusLine {
    private static let table: [[UInt8]] = (0..<1000).map { code in
        code < 100 ? [] : Array("HTTP/1.1 \(code) \(ResponseWriter.reasonPhrase(code))\r\n".utf8)
    }

    /// The status line of `code` (100...999; a programmer mistake otherwise) as bytes.
    public static func bytes(_ code: Int) -> [UInt8] {
        precondition((100...999).contains(code), "status \(code) is not a three-digit code")
        return table[code]
    }
}
