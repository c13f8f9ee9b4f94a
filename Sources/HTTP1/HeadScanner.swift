/// One left-to-right pass over a request head that validates as it reads.
///
/// Every byte is read through `need(_:)`, which throws 431 for a byte past `maxHeaderBytes` and
/// `.incomplete` for a byte not received yet; the request-target alone is bounded by
/// `maxTargetBytes` instead, so an over-long target is a 414 even though it also overflows the head.
/// Because errors are raised in byte order, a prefix of the input never fails differently from the
/// whole input.
struct HeadScanner {
    /// The received bytes; the head starts at offset 0.
    let bytes: UnsafeRawBufferPointer
    /// The limits in force.
    let limits: ParserLimits
    /// How many head bytes may be read: `min(bytes.count, maxHeaderBytes)`.
    let available: Int

    /// Prepares a scan of `bytes` under `limits`.
    init(bytes: UnsafeRawBufferPointer, limits: ParserLimits) {
        self.bytes = bytes
        self.limits = limits
        self.available = min(bytes.count, limits.maxHeaderBytes)
    }

    /// Makes sure head byte `index` can be read: 431 past the head limit, `.incomplete` if not received.
    @inline(__always)
    func need(_ index: Int) throws(ScanStop) {
        if index < available { return }
        throw index >= limits.maxHeaderBytes ? .failure(.headerTooLarge) : .incomplete
    }

    /// Scans the head; returns it with the number of bytes it spans.
    func scan() throws(ScanStop) -> (RequestHead, Int) {
        var i = try skipLeadingEmptyLine()

        // request-line = method SP request-target SP HTTP-version CRLF (RFC 9112 §3)
        let methodStart = i
        while true {
            try need(i)
            let byte = bytes[i]
            if byte == ASCII.sp { break }
            guard ASCII.isTokenChar(byte) else {
                if i == methodStart && (byte == ASCII.cr || byte == ASCII.lf) {
                    throw .bad("more than one empty line before the request line")
                }
                throw .bad("invalid character in method")
            }
            i &+= 1
        }
        guard i > methodStart else { throw .bad("missing method") }
        let methodEnd = i
        let method = HTTPMethod.recognise(bytes, methodStart, methodEnd)
        i &+= 1

        let targetStart = i
        while true {
            guard i < bytes.count else { throw .incomplete }
            let byte = bytes[i]
            if byte == ASCII.sp { break }
            guard ASCII.isTargetChar(byte) else {
                if byte == ASCII.cr || byte == ASCII.lf { throw .bad("request line without HTTP version") }
                throw .bad("invalid character in request target")
            }
            guard i &- targetStart < limits.maxTargetBytes else { throw .failure(.uriTooLong) }
            i &+= 1
        }
        let targetEnd = i
        guard targetEnd > targetStart else { throw .bad("missing request target") }
        let shape = try classifyTarget(method: method, start: targetStart, end: targetEnd)
        i &+= 1

        let versionMinor = try scanVersion(at: i)
        i &+= 8
        try need(i)
        guard bytes[i] == ASCII.cr else {
            throw .bad(bytes[i] == ASCII.lf ? "bare LF in request line" : "malformed HTTP version")
        }
        try need(i &+ 1)
        guard bytes[i &+ 1] == ASCII.lf else { throw .bad("bare CR in request line") }
        i &+= 2

        // *( field-line CRLF ) CRLF (RFC 9112 §5)
        let sectionStart = i
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(16)
        var summary = FieldSummary()
        while true {
            try need(i)
            let first = bytes[i]
            if first == ASCII.cr {
                try need(i &+ 1)
                guard bytes[i &+ 1] == ASCII.lf else { throw .bad("bare CR in header section") }
                i &+= 2
                break
            }
            if first == ASCII.lf { throw .bad("bare LF in header section") }
            if ASCII.isWhitespace(first) {
                throw .bad(fields.isEmpty ? "whitespace before the first header line" : "obsolete line folding")
            }
            guard fields.count < limits.maxHeaderLines else { throw .failure(.headerTooLarge) }

            let nameStart = i
            while true {
                try need(i)
                let byte = bytes[i]
                if byte == ASCII.colon { break }
                guard ASCII.isTokenChar(byte) else {
                    if ASCII.isWhitespace(byte) { throw .bad("whitespace before colon in header line") }
                    if byte == ASCII.cr || byte == ASCII.lf { throw .bad("header line without colon") }
                    throw .bad("invalid character in header name")
                }
                i &+= 1
            }
            guard i > nameStart else { throw .bad("empty header name") }
            let nameEnd = i
            i &+= 1

            while true {
                try need(i)
                guard ASCII.isWhitespace(bytes[i]) else { break }
                i &+= 1
            }
            let valueStart = i
            var valueEnd = i
            while true {
                try need(i)
                let byte = bytes[i]
                if byte == ASCII.cr { break }
                guard ASCII.isFieldValueByte(byte) else {
                    throw .bad(byte == ASCII.lf ? "bare LF in header section" : "invalid character in header value")
                }
                i &+= 1
                if !ASCII.isWhitespace(byte) { valueEnd = i }
            }
            try need(i &+ 1)
            guard bytes[i &+ 1] == ASCII.lf else { throw .bad("bare CR in header section") }
            i &+= 2

            try summary.note(bytes, name: nameStart..<nameEnd, value: valueStart..<valueEnd)
            fields.append(
                HTTPHeaders.Field(
                    nameStart: Int32(truncatingIfNeeded: nameStart &- sectionStart),
                    nameLength: Int32(truncatingIfNeeded: nameEnd &- nameStart),
                    valueStart: Int32(truncatingIfNeeded: valueStart &- sectionStart),
                    valueLength: Int32(truncatingIfNeeded: valueEnd &- valueStart)))
        }
        let headEnd = i

        let framing = try summary.framing(versionMinor: versionMinor)
        let storage = Array(UnsafeRawBufferPointer(rebasing: bytes[sectionStart..<(headEnd &- 2)]))
        let target = string(targetStart, targetEnd)
        let (path, query) = pathAndQuery(shape, target: target, start: targetStart, end: targetEnd)
        let head = RequestHead(
            method: method,
            methodName: method?.name ?? string(methodStart, methodEnd),
            target: target,
            path: path,
            query: query,
            versionMinor: versionMinor,
            headers: HTTPHeaders(storage: storage, fields: fields),
            host: summary.host.map { string($0.lowerBound, $0.upperBound) },
            contentLength: summary.contentLength,
            isChunked: framing.isChunked,
            keepAlive: framing.keepAlive,
            expectsContinue: framing.expectsContinue)
        return (head, headEnd)
    }

    /// Skips one empty line (CRLF) before the request line, as RFC 9112 §2.2 allows; returns the offset after it.
    private func skipLeadingEmptyLine() throws(ScanStop) -> Int {
        try need(0)
        if bytes[0] == ASCII.lf { throw .bad("bare LF before the request line") }
        guard bytes[0] == ASCII.cr else { return 0 }
        try need(1)
        guard bytes[1] == ASCII.lf else { throw .bad("bare CR before the request line") }
        return 2
    }

    /// Reads `HTTP/<digit>.<digit>` at `start`: 400 when malformed, 505 for a version other than 1.0 and 1.1.
    private func scanVersion(at start: Int) throws(ScanStop) -> Int {
        let name: StaticString = "HTTP/"
        for k in 0..<5 {
            try need(start &+ k)
            guard bytes[start &+ k] == name.utf8Start[k] else { throw .bad("malformed HTTP version") }
        }
        try need(start &+ 5)
        let major = bytes[start &+ 5]
        guard ASCII.isDigit(major) else { throw .bad("malformed HTTP version") }
        try need(start &+ 6)
        guard bytes[start &+ 6] == UInt8(ascii: ".") else { throw .bad("malformed HTTP version") }
        try need(start &+ 7)
        let minor = bytes[start &+ 7]
        guard ASCII.isDigit(minor) else { throw .bad("malformed HTTP version") }
        guard major == UInt8(ascii: "1"), minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1") else {
            throw .failure(.versionNotSupported)
        }
        return Int(minor &- UInt8(ascii: "0"))
    }

    /// Decodes `bytes[start..<end]` as UTF-8 (the parser only passes validated ASCII or field values).
    func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
