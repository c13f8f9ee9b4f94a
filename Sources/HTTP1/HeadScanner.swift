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
        i = skipTokenChars(from: i)
        try need(i)
        guard bytes[i] == ASCII.sp else {
            if i == methodStart && (bytes[i] == ASCII.cr || bytes[i] == ASCII.lf) {
                throw .bad("more than one empty line before the request line")
            }
            throw .bad("invalid character in method")
        }
        guard i > methodStart else { throw .bad("missing method") }
        let methodEnd = i
        let method = HTTPMethod.recognise(bytes, methodStart, methodEnd)
        i &+= 1

        let targetStart = i
        i = ASCII.skipTargetText(bytes, from: i, to: min(bytes.count, targetStart &+ limits.maxTargetBytes))
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

        // *( field-line CRLF ) CRLF (RFC 9112 §5); the offsets table lives on the stack while scanning
        // (64 entries = 1 KiB, the size stack allocation takes without probing the stack's bounds).
        let sectionStart = i
        let (headers, summary, headEnd) = try withUnsafeTemporaryAllocation(
            of: HTTPHeaders.Field.self, capacity: 64
        ) { table throws(ScanStop) in
            try scanFields(from: sectionStart, into: table)
        }

        let framing = try summary.framing(versionMinor: versionMinor)
        let target = string(targetStart, targetEnd)
        let (path, query) = pathAndQuery(shape, target: target, start: targetStart, end: targetEnd)
        let head = RequestHead(
            method: method,
            methodName: method?.name ?? string(methodStart, methodEnd),
            target: target,
            path: path,
            query: query,
            versionMinor: versionMinor,
            headers: headers,
            host: summary.hasHost ? string(summary.hostStart, summary.hostEnd) : nil,
            contentLength: summary.contentLength,
            isChunked: framing.isChunked,
            keepAlive: framing.keepAlive,
            expectsContinue: framing.expectsContinue)
        return (head, headEnd)
    }

    /// Scans the field lines and the final CRLF starting at `sectionStart`, noting offsets in `table`
    /// (and in a heap array once `table` is full); returns the fields, what they said about framing,
    /// and the head's end.
    private func scanFields(
        from sectionStart: Int, into table: UnsafeMutableBufferPointer<HTTPHeaders.Field>
    ) throws(ScanStop) -> (HTTPHeaders, FieldSummary, Int) {
        var i = sectionStart
        var count = 0
        var overflow: [HTTPHeaders.Field] = []
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
                throw .bad(count == 0 ? "whitespace before the first header line" : "obsolete line folding")
            }
            guard count < limits.maxHeaderLines else { throw .failure(.headerTooLarge) }

            let nameStart = i
            i = skipTokenChars(from: i)
            try need(i)
            let stop = bytes[i]
            guard stop == ASCII.colon else {
                if ASCII.isWhitespace(stop) { throw .bad("whitespace before colon in header line") }
                if stop == ASCII.cr || stop == ASCII.lf { throw .bad("header line without colon") }
                throw .bad("invalid character in header name")
            }
            guard i > nameStart else { throw .bad("empty header name") }
            let nameEnd = i
            i &+= 1

            while i < available && ASCII.isWhitespace(bytes[i]) { i &+= 1 }
            let valueStart = i
            while true {
                i = ASCII.skipFieldText(bytes, from: i, to: available)
                try need(i)
                let byte = bytes[i]
                if byte == ASCII.cr { break }
                guard byte == ASCII.htab else {
                    throw .bad(byte == ASCII.lf ? "bare LF in header section" : "invalid character in header value")
                }
                i &+= 1
            }
            var valueEnd = i
            while valueEnd > valueStart && ASCII.isWhitespace(bytes[valueEnd &- 1]) { valueEnd &-= 1 }
            try need(i &+ 1)
            guard bytes[i &+ 1] == ASCII.lf else { throw .bad("bare CR in header section") }
            i &+= 2

            try summary.note(bytes, nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd)
            let field = HTTPHeaders.Field(
                nameStart: UInt32(truncatingIfNeeded: nameStart &- sectionStart),
                nameLength: UInt32(truncatingIfNeeded: nameEnd &- nameStart),
                valueStart: UInt32(truncatingIfNeeded: valueStart &- sectionStart),
                valueLength: UInt32(truncatingIfNeeded: valueEnd &- valueStart))
            if count < table.count {
                table[count] = field
            } else {
                overflow.append(field)
            }
            count &+= 1
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[sectionStart..<(i &- 2)])
        let inTable = UnsafeBufferPointer(rebasing: table[0..<min(count, table.count)])
        if overflow.isEmpty {
            return (HTTPHeaders(text: text, fields: inTable), summary, i)
        }
        let all = Array(inTable) + overflow
        return (all.withUnsafeBufferPointer { HTTPHeaders(text: text, fields: $0) }, summary, i)
    }

    /// The offset of the first non-tchar at or after `start` within the readable head (`available` if none).
    @inline(__always)
    private func skipTokenChars(from start: Int) -> Int {
        var i = start
        while i < available && ASCII.isTokenChar(bytes[i]) { i &+= 1 }
        return i
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
