/// Byte constants and character classes of RFC 9110 / RFC 9112 / RFC 3986, as branch-light bit tests.
///
/// Each class is a 128-bit set split into two 64-bit words; bytes >= 0x80 are handled by the caller.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let equals: UInt8 = 0x3D
    static let question: UInt8 = 0x3F
    static let slash: UInt8 = 0x2F
    static let star: UInt8 = 0x2A
    static let at: UInt8 = 0x40
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C

    /// Tests `byte` against the 128-bit set `(low, high)`; false for bytes >= 0x80.
    @inline(__always)
    static func inSet(_ byte: UInt8, _ low: UInt64, _ high: UInt64) -> Bool {
        if byte < 64 { return (low >> UInt64(byte)) & 1 != 0 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 != 0 }
        return false
    }

    /// tchar (RFC 9110 §5.6.2): ALPHA / DIGIT / "!#$%&'*+-.^_`|~".
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        inSet(byte, 0x03FF_6CFA_0000_0000, 0x57FF_FFFF_C7FF_FFFE)
    }

    /// A byte allowed in a request-target: VCHAR except `#` (a fragment is never sent; RFC 9112 §3.2).
    /// Non-ASCII, CTL, SP and DEL are rejected.
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        inSet(byte, 0xFFFF_FFF6_0000_0000, 0x7FFF_FFFF_FFFF_FFFF)
    }

    /// A byte allowed in a Host value: reg-name / IP-literal characters and ":" (RFC 3986 §3.2.2).
    @inline(__always)
    static func isHostChar(_ byte: UInt8) -> Bool {
        inSet(byte, 0x2FFF_7FF2_0000_0000, 0x47FF_FFFE_AFFF_FFFE)
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
