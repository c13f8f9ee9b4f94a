/// Eight-bytes-at-a-time tests for the string fast paths (SWAR: SIMD within a register).
///
/// The bit tricks are the exact "has zero byte" and "has byte less than n" tests (n ≤ 128) from
/// Sean Anderson's *Bit Twiddling Hacks*; they answer for the whole word, in any byte order.
enum ByteScan {
    /// 0x01 in every byte.
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// 0x80 in every byte.
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// True when some byte of `word` is below `limit` (`limit` ≤ 128).
    @inline(__always)
    static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highBits != 0
    }

    /// True when some byte of `word` equals `value`.
    @inline(__always)
    static func hasByte(_ value: UInt8, in word: UInt64) -> Bool {
        let difference = word ^ (ones &* UInt64(value))
        return (difference &- ones) & ~difference & highBits != 0
    }

    /// True when no byte of `word` needs escaping in a JSON string (`"`, `\`, below 0x20).
    ///
    /// The three tests of `hasByte` with their high-bit masks OR-ed before the one comparison (the same
    /// answer as testing each, with one branch instead of three).
    @inline(__always)
    static func isEscapeFree(_ word: UInt64) -> Bool {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let found =
            ((word &- ones &* 0x20) & ~word) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return found & highBits == 0
    }

    /// True when every byte of `word` is ASCII that a parser copies through unchanged inside a string.
    @inline(__always)
    static func isPlainASCII(_ word: UInt64) -> Bool {
        word & highBits == 0 && isEscapeFree(word)
    }

    /// The position (0 to 7, in memory order) of the first byte of `word`, as loaded from memory, that a
    /// parser must look at inside a JSON string (`"`, `\`, below 0x20, 0x80 and above), or 8 when there
    /// is none.
    ///
    /// Each test flags the high bit of every matching byte; a borrow can also flag a byte above a match,
    /// never below one, so the lowest flag is exact.
    @inline(__always)
    static func firstSpecialByte(_ word: UInt64) -> Int {
        let word = UInt64(littleEndian: word)
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let flags =
            (((word &- ones &* 0x20) & ~word) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | word)
            & highBits
        return flags.trailingZeroBitCount >> 3
    }
}
