/// The four request-target forms of RFC 9112 §3.2, with the offsets needed to cut path and query.
enum TargetShape {
    /// `/path?query`; `query` is the offset of the first `?`, if any.
    case origin(query: Int?)
    /// `http(s)://authority/path?query`; `path` is the offset of the path's `/`, if any.
    case absolute(path: Int?, query: Int?)
    /// `*` (OPTIONS only).
    case asterisk
    /// `host:port` (CONNECT only).
    case authority
}

extension HeadScanner {
    /// Classifies the target at `bytes[start..<end]` (already checked to be VCHAR without `#`).
    ///
    /// CONNECT requires authority-form and only CONNECT may use it; `*` is only for OPTIONS; an
    /// absolute-form target must use http or https and carry no userinfo (RFC 9110 §4.2.4).
    func classifyTarget(method: HTTPMethod?, start: Int, end: Int) throws(ScanStop) -> TargetShape {
        if method == .CONNECT {
            guard isAuthority(start, end) else { throw .bad("CONNECT requires host:port") }
            return .authority
        }
        let first = bytes[start]
        if first == ASCII.slash {
            return .origin(query: firstIndex(of: ASCII.question, start, end))
        }
        if first == ASCII.star && end &- start == 1 {
            guard method == .OPTIONS else { throw .bad("asterisk-form target is only for OPTIONS") }
            return .asterisk
        }
        let authorityStart: Int
        if hasPrefixIgnoringCase("http://", start, end) {
            authorityStart = start &+ 7
        } else if hasPrefixIgnoringCase("https://", start, end) {
            authorityStart = start &+ 8
        } else {
            throw .bad("invalid request target")
        }
        var k = authorityStart
        while k < end && bytes[k] != ASCII.slash && bytes[k] != ASCII.question {
            guard ASCII.isHostChar(bytes[k]) else { throw .bad("invalid authority in request target") }
            k &+= 1
        }
        guard k > authorityStart else { throw .bad("empty authority in request target") }
        let query = firstIndex(of: ASCII.question, k, end)
        let path = k < end && bytes[k] == ASCII.slash ? k : nil
        return .absolute(path: path, query: query)
    }

    /// Cuts path and query from the target; shares `target`'s storage when the path is the whole target.
    func pathAndQuery(_ shape: TargetShape, target: String, start: Int, end: Int) -> (String, String) {
        switch shape {
        case .origin(let query):
            guard let query else { return (target, "") }
            return (string(start, query), string(query &+ 1, end))
        case .absolute(let path, let query):
            let pathEnd = query ?? end
            let pathString = path.map { string($0, pathEnd) } ?? "/"
            return (pathString, query.map { string($0 &+ 1, end) } ?? "")
        case .asterisk:
            return ("*", "")
        case .authority:
            return ("", "")
        }
    }

    /// Whether `bytes[start..<end]` is `host:port` with a non-empty host and a decimal port.
    private func isAuthority(_ start: Int, _ end: Int) -> Bool {
        var colon: Int? = nil
        for k in start..<end {
            guard ASCII.isHostChar(bytes[k]) else { return false }
            if bytes[k] == ASCII.colon { colon = k }
        }
        guard let colon, colon > start, colon &+ 1 < end else { return false }
        for k in (colon &+ 1)..<end where !ASCII.isDigit(bytes[k]) {
            return false
        }
        return true
    }

    /// The offset of the first `byte` in `bytes[start..<end]`, or nil.
    private func firstIndex(of byte: UInt8, _ start: Int, _ end: Int) -> Int? {
        var k = start
        while k < end {
            if bytes[k] == byte { return k }
            k &+= 1
        }
        return nil
    }

    /// Whether `bytes[start..<end]` starts with the lower-case `prefix`, ignoring ASCII case.
    private func hasPrefixIgnoringCase(_ prefix: StaticString, _ start: Int, _ end: Int) -> Bool {
        let length = prefix.utf8CodeUnitCount
        guard end &- start >= length else { return false }
        return ASCII.equalsIgnoringCase(bytes, start, length, prefix)
    }
}
