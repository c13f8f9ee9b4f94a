extension JSONScanner {
    /// RFC 8259, section 7: a quoted string starting at `index`, escapes decoded, UTF-8 checked.
    ///
    /// The common case (no escapes) makes the `String` straight from the input bytes, stepping over
    /// plain ASCII eight bytes at a time and then straight to the first byte that needs a look
    /// (`ByteScan.firstSpecialByte`), with the position kept in a local until the string ends.
    mutating func parseString() throws(JSONError) -> String {
        let start = index + 1
        let end = bytes.count
        var position = start
        while position < end {
            if position &+ 8 <= end {
                let skip = ByteScan.firstSpecialByte(bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                position &+= skip
                if skip == 8 { continue }
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = Self.makeString(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
                index = position + 1
                return text
            }
            if byte == UInt8(ascii: "\\") {
                index = position
                return try parseEscapedString(from: start)
            }
            if byte < 0x20 { throw JSONError(offset: position, reason: .controlCharacterInString(byte)) }
            if byte < 0x80 {
                position += 1
            } else {
                index = position
                try skipUTF8Sequence()
                position = index
            }
        }
        index = position
        throw JSONError(offset: index, reason: .unexpectedEnd)
    }

    /// A `String` from bytes already known to be well-formed UTF-8.
    static func makeString(_ utf8: UnsafeRawBufferPointer) -> String {
        utf8.withMemoryRebound(to: UInt8.self) { String(decoding: $0, as: UTF8.self) }
    }

    /// The rest of a string that holds at least one escape; `index` is at the first backslash.
    mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return scratch.withUnsafeBytes { Self.makeString($0) }
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape()
            } else if byte < 0x20 {
                throw JSONError(offset: index, reason: .controlCharacterInString(byte))
            } else if byte < 0x80 {
                scratch.append(byte)
                index += 1
            } else {
                let sequenceStart = index
                try skipUTF8Sequence()
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[sequenceStart..<index]))
            }
        }
        throw JSONError(offset: index, reason: .unexpectedEnd)
    }

    /// One escape at `index` (a backslash), decoded into `scratch`.
    mutating func parseEscape() throws(JSONError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONError(offset: escapeStart, reason: .loneSurrogate(unit))
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed at once by `\u` and a low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONError(offset: escapeStart, reason: .loneSurrogate(unit)) }
                index += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JSONError(offset: escapeStart, reason: .loneSurrogate(unit))
                }
                let scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                appendUTF8(scalar)
            } else {
                appendUTF8(UInt32(unit))
            }
        default:
            throw JSONError(offset: escapeStart, reason: .invalidEscape)
        }
    }

    /// Four hexadecimal digits (either case) as one UTF-16 code unit.
    mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(offset: index, reason: .invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Appends the UTF-8 form of a Unicode scalar value (never a surrogate here).
    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Steps over one multi-byte UTF-8 sequence at `index`, or throws `invalidUTF8` at its first byte.
    ///
    /// RFC 3629, section 4 (UTF8-2, UTF8-3, UTF8-4): the second byte's range depends on the first,
    /// which excludes overlong forms (C0, C1, E0 80–9F, F0 80–8F), surrogates (ED A0–BF) and
    /// values above U+10FFFF (F4 90–BF, F5–FF).
    mutating func skipUTF8Sequence() throws(JSONError) {
        let lead = bytes[index]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondHigh = 0x9F
        case 0xF0:
            length = 4
            secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondHigh = 0x8F
        default: throw JSONError(offset: index, reason: .invalidUTF8)
        }
        guard index + length <= bytes.count else { throw JSONError(offset: index, reason: .invalidUTF8) }
        let second = bytes[index + 1]
        guard second >= secondLow && second <= secondHigh else {
            throw JSONError(offset: index, reason: .invalidUTF8)
        }
        for offset in 2..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { throw JSONError(offset: index, reason: .invalidUTF8) }
        }
        index += length
    }
}
