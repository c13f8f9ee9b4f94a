import HTTP1

/// Cached `HTTP/1.1 <code> <reason>\r\n` lines.
enum StatusLine {
    private static let table: [[UInt8]] = (0..<600).map { code in
        code < 100 ? [] : Array("HTTP/1.1 \(code) \(ResponseWriter.reasonPhrase(code))\r\n".utf8)
    }

    /// The status line of `code` as bytes.
    static func bytes(_ code: Int) -> [UInt8] {
        if code >= 100 && code < 600 { return table[code] }
        return Array("HTTP/1.1 \(code) Unknown\r\n".utf8)
    }
}
