/// Writes HTTP/1.1 response heads (RFC 9112 §4, §5) into a byte buffer.
public enum ResponseWriter {
    /// The standard reason phrase for `status` (RFC 9110 §15), or "Unknown" for unregistered codes.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Unknown"
        }
    }

    /// Appends `HTTP/1.1 <status> <reason>\r\n`, each header as `Name: value\r\n`, then `\r\n`.
    ///
    /// `status` must be 100...999 (a programmer mistake otherwise). So that a response can never be
    /// split, CR, LF and NUL inside a name or value are written as a space.
    public static func appendHead(
        status: Int, headers: some Sequence<(String, String)>, into buffer: inout [UInt8]
    ) {
        precondition((100...999).contains(status), "status \(status) is not a three-digit code")
        appendASCII("HTTP/1.1 ", into: &buffer)
        buffer.append(UInt8(truncatingIfNeeded: 0x30 + status / 100))
        buffer.append(UInt8(truncatingIfNeeded: 0x30 + status / 10 % 10))
        buffer.append(UInt8(truncatingIfNeeded: 0x30 + status % 10))
        buffer.append(ASCII.sp)
        appendGuarded(reasonPhrase(status), into: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        for (name, value) in headers {
            appendGuarded(name, into: &buffer)
            buffer.append(ASCII.colon)
            buffer.append(ASCII.sp)
            appendGuarded(value, into: &buffer)
            buffer.append(ASCII.cr)
            buffer.append(ASCII.lf)
        }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// Appends a static ASCII literal.
    @inline(__always)
    private static func appendASCII(_ text: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
