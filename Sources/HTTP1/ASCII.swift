/// Byte constants, character classes of RFC 9110 / RFC 9112 / RFC 3986, and eight-bytes-at-a-time scans.
enum ASCII {
    /// CR.
    static let cr: UInt8 = 0x0D
    /// LF.
    static let lf: UInt8 = 0x0A
    /// SP.
    static let sp: UInt8 = 0x20
    /// HTAB.
    static let htab: UInt8 = 0x09
    /// `:`.
    static let colon: UInt8 = 0x3A
    /// `;`.
    static let semicolon: UInt8 = 0x3B
    /// `,`.
    static let comma: UInt8 = 0x2C
    /// `=`.
    static let equals: UInt8 = 0x3D
    /// `?`.
    static let question: UInt8 = 0x3F
    /// `/`.
    static let slash: UInt8 = 0x2F
    /// `*`.
    static let star: UInt8 = 0x2A
    /// `@`.
    static let at: UInt8 = 0x40
    /// `"`.
    static let quote: UInt8 = 0x22
    /// `\`.
    static let backslash: UInt8 = 0x5C

    /// Character classes of every byte value as the digit '0' + flags (1 = tchar, 2 = target
    /// character, 4 = Host character); one row per high nibble. A literal, so lookups need no
    /// lazy initialisation and no bounds check beyond the byte's own range.
    ///
    /// tchar (RFC 9110 §5.6.2): ALPHA / DIGIT / "!#$%&'*+-.^_`|~". Target characters: VCHAR except
    /// `#` (a fragment is never sent, RFC 9112 §3.2). Host characters: RFC 3986 §3.2.2 reg-name /
    /// IP-literal characters and ":". Bytes >= 0x80 are in no class.
    static let classes: StaticString = """
        0000000000000000\
        0000000000000000\
        0721777766776772\
        7777777777662622\
        2777777777777777\
        7777777777762637\
        3777777777777777\
        7777777777723270\
        0000000000000000\
        0000000000000000\
        0000000000000000\
        0000000000000000\
        0000000000000000\
        0000000000000000\
        0000000000000000\
        0000000000000000
        """

    /// Whether `byte` has class `flag` in `classes`.
    @inline(__always)
    static func hasClass(_ byte: UInt8, _ flag: UInt8) -> Bool {
        classes.utf8Start[Int(byte)] & flag != 0
    }

    /// tchar (RFC 9110 §5.6.2).
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        hasClass(byte, 1)
    }

    /// A byte allowed in a request-target: VCHAR except `#`.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        hasClass(byte, 2)
    }

    /// A byte allowed in a Host value.
    @inline(__always)
    static func isHostChar(_ byte: UInt8) -> Bool {
        hasClass(byte, 4)
    }

    /// field-vchar / SP / HTAB (RFC 9110 §5.5): anything but CTL (except HTAB) and DEL; obs-text allowed.
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == htab
    }

    /// SP or HTAB (optional whitespace, RFC 9110 §5.6.3).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == sp || byte == htab
    }

    /// DIGIT.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// The value of a HEXDIG, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x41 &+ 10
        case 0x61...0x66: return byte &- 0x61 &+ 10
        default: return nil
        }
    }

    /// Eight bytes read little-endian from `bytes` at `offset` (caller guarantees `offset + 8 <= count`).
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// High bit set in each byte lane of `word` whose byte is below `bound` (<= 0x80).
    ///
    /// Lanes above the first flagged lane may be flagged falsely (borrows), so only the lowest
    /// flagged lane is exact; callers use `trailingZeroBitCount / 8` to find it.
    @inline(__always)
    static func lanesBelow(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- 0x0101_0101_0101_0101 &* UInt64(bound)) & ~word & 0x8080_8080_8080_8080
    }

    /// High bit set in each byte lane of `word` equal to `byte` (lowest flagged lane exact).
    @inline(__always)
    static func lanesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        lanesBelow(word ^ (0x0101_0101_0101_0101 &* UInt64(byte)), 1)
    }

    /// Offset of the first byte in `bytes[start..<end]` that is not field-vchar / SP (a CTL, HTAB,
    /// CR or DEL), skipping eight bytes at a time; `end` if there is none.
    @inline(__always)
    static func skipFieldText(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i &+ 8 <= end {
            let word = word(bytes, i)
            let stops = lanesBelow(word, 0x20) | lanesEqual(word, 0x7F)
            if stops != 0 { return i &+ stops.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < end && bytes[i] >= 0x20 && bytes[i] != 0x7F { i &+= 1 }
        return i
    }

    /// Offset of the first byte in `bytes[start..<end]` that is not a plain target character
    /// (a CTL, SP, DEL, `#` or non-ASCII byte), skipping eight bytes at a time; `end` if none.
    @inline(__always)
    static func skipTargetText(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i &+ 8 <= end {
            let word = word(bytes, i)
            let stops =
                lanesBelow(word, 0x21) | (word & 0x8080_8080_8080_8080) | lanesEqual(word, 0x7F)
                | lanesEqual(word, 0x23)
            if stops != 0 { return i &+ stops.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < end && isTargetChar(bytes[i]) { i &+= 1 }
        return i
    }

    /// ASCII lower-casing of one byte (letters only).
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `bytes[start..<start+length]` equals `lowercase` ignoring ASCII case.
    ///
    /// `lowercase` must already be lower case.
    @inline(__always)
    static func equalsIgnoringCase(
        _ bytes: UnsafeRawBufferPointer, _ start: Int, _ length: Int, _ lowercase: StaticString
    ) -> Bool {
        guard length == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for k in 0..<length where lower(bytes[start &+ k]) != expected[k] {
            return false
        }
        return true
    }
}
