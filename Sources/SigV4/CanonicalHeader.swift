/// A header as SigV4 signs it: lower-case name, value trimmed with inner runs of spaces collapsed.
struct CanonicalHeader: Sendable {
    /// The lower-case name.
    let name: String
    /// The normalised value, which is also what the client must send.
    let value: String
    /// True when the name sorts before `host` (where `host` goes among the signed headers).
    let sortsBeforeHost: Bool

    /// True for the names the signer sets itself, which a caller may not pass.
    static func isReserved(_ name: String) -> Bool {
        // Every reserved name starts with h, a or x: most names are ruled out by one byte.
        guard let first = name.utf8.first,
            first == UInt8(ascii: "h") || first == UInt8(ascii: "a") || first == UInt8(ascii: "x")
        else { return false }
        switch name {
        case "host", "authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "x-amz-algorithm",
            "x-amz-credential", "x-amz-expires", "x-amz-signedheaders", "x-amz-signature":
            return true
        default:
            return false
        }
    }

    /// Lower-cases and checks the name, normalises and checks the value.
    ///
    /// Names are `a-z 0-9 - _ .` (every S3 header, and none of them needs URI encoding in
    /// `X-Amz-SignedHeaders`). Values are visible ASCII and spaces: a CR, LF or other control
    /// character could split the header the client sends, so it is refused rather than encoded.
    /// Leading and trailing spaces and tabs go, inner runs become one space (SigV4's "Trimall").
    init(name rawName: String, value rawValue: String) throws(SigV4Error) {
        guard let hasUpperCase = Self.scanName(rawName) else {
            throw .invalidHeader(name: rawName, reason: "a header name is made of a-z, 0-9, -, _ and .")
        }
        guard !rawName.isEmpty else { throw .invalidHeader(name: rawName, reason: "empty name") }
        let name = hasUpperCase ? rawName.lowercased() : rawName
        guard !Self.isReserved(name) else {
            throw .invalidHeader(name: rawName, reason: "set by the signer itself")
        }
        self.name = name
        self.value = try Self.normalize(rawValue, name: rawName)
        self.sortsBeforeHost = Self.sortsBeforeHost(name)
    }

    /// Whether `name` holds an upper-case letter, or nil when it holds a byte other than `a-z A-Z 0-9 -
    /// _ .` (read over contiguous bytes: a name is checked for every signed header of every URL).
    private static func scanName(_ name: String) -> Bool? {
        var name = name
        return name.withUTF8 { bytes -> Bool? in
            var hasUpperCase = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                    UInt8(ascii: "_"), UInt8(ascii: "."):
                    continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    hasUpperCase = true
                default:
                    return nil
                }
            }
            return hasUpperCase
        }
    }

    /// `name < "host"` (names are ASCII, where `String`'s order is the bytes' order), compared over the
    /// bytes.
    static func sortsBeforeHost(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            let host: StaticString = "host"
            let hostBytes = UnsafeBufferPointer(start: host.utf8Start, count: host.utf8CodeUnitCount)
            for index in 0..<min(bytes.count, hostBytes.count) where bytes[index] != hostBytes[index] {
                return bytes[index] < hostBytes[index]
            }
            return bytes.count < hostBytes.count
        }
    }

    /// A header the signer builds itself, taken as given.
    init(trustedName: String, value: String) {
        self.name = trustedName
        self.value = value
        self.sortsBeforeHost = Self.sortsBeforeHost(trustedName)
    }

    /// `value` trimmed and with inner runs of spaces and tabs collapsed; the same string when it
    /// is already so (the usual case, which then allocates nothing).
    private static func normalize(_ value: String, name: String) throws(SigV4Error) -> String {
        var text = value
        // nil: a byte that is not visible ASCII, a space or a tab; .some(nil): already normal.
        let normalized = text.withUTF8 { bytes -> String?? in
            // Eight visible bytes at a time first (a digest or a content type has no space).
            var start = 0
            while start + 8 <= bytes.count
                && isVisible(UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt64.self))
            {
                start += 8
            }
            var alreadyNormal = true
            var previousWasSpace = start == 0  // a leading space is not normal
            for byte in bytes[start...] {
                if byte == UInt8(ascii: " ") {
                    if previousWasSpace { alreadyNormal = false }
                    previousWasSpace = true
                } else if byte == UInt8(ascii: "\t") {
                    alreadyNormal = false
                    previousWasSpace = true
                } else if byte >= 0x21 && byte <= 0x7e {
                    previousWasSpace = false
                } else {
                    return nil
                }
            }
            if previousWasSpace && !bytes.isEmpty { alreadyNormal = false }
            if alreadyNormal { return .some(nil) }
            var normalized = [UInt8]()
            var pendingSpace = false
            for byte in bytes {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    pendingSpace = !normalized.isEmpty
                    continue
                }
                if pendingSpace { normalized.append(UInt8(ascii: " ")) }
                pendingSpace = false
                normalized.append(byte)
            }
            return String(decoding: normalized, as: UTF8.self)
        }
        guard let normalized else {
            throw .invalidHeader(name: name, reason: "values are visible ASCII and spaces only")
        }
        return normalized ?? value
    }

    /// True when every byte of `word` is visible ASCII (0x21 to 0x7E): no space, tab, control or
    /// non-ASCII byte. SWAR tests ("has a byte less than n", a byte of 0x7F or more), exact for the word
    /// as a whole.
    static func isVisible(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        return ((word &- ones &* 0x21) & ~word | (word &+ ones) | word) & highBits == 0
    }

    /// `headers` checked, normalised and sorted by name; duplicates are refused. `host` is not added.
    static func canonicalize(_ headers: [(name: String, value: String)]) throws(SigV4Error) -> [CanonicalHeader] {
        var result = [CanonicalHeader]()
        result.reserveCapacity(headers.count + 4)
        for (name, value) in headers {
            let header = try CanonicalHeader(name: name, value: value)
            guard !result.contains(where: { $0.name == header.name }) else {
                throw .invalidHeader(name: name, reason: "given twice")
            }
            result.append(header)
        }
        sort(&result)
        return result
    }

    /// Sorts `headers` by the bytes of their names (insertion sort: the lists hold a handful).
    static func sort(_ headers: inout [CanonicalHeader]) {
        guard headers.count > 1 else { return }
        for index in 1..<headers.count {
            var position = index
            while position > 0 && headers[position].sortsBefore(headers[position - 1].name) {
                headers.swapAt(position, position - 1)
                position -= 1
            }
        }
    }

    /// True when this header's name sorts before `other` byte by byte (names are ASCII, where `String`'s
    /// order is the bytes' order, compared without generic iterators).
    func sortsBefore(_ other: String) -> Bool {
        name < other
    }

    /// The name in the casing clients usually send: `Content-Type`, `Content-MD5`, `If-None-Match`;
    /// `x-amz-*` names stay lower case as AWS writes them.
    var displayName: String {
        switch name {
        case "content-type": return "Content-Type"
        case "content-length": return "Content-Length"
        case "content-md5": return "Content-MD5"
        case "if-none-match": return "If-None-Match"
        case "range": return "Range"
        default:
            if name.hasPrefix("x-amz-") { return name }
            return name.split(separator: "-", omittingEmptySubsequences: false).map { part in
                part == "md5" ? "MD5" : part.prefix(1).uppercased() + part.dropFirst()
            }.joined(separator: "-")
        }
    }
}
