/// Appending text to byte buffers on the hot path (response heads, log lines) without going through
/// `String.UTF8View`'s generic copy.
extension Array where Element == UInt8 {
    /// Appends the bytes of a literal.
    @inline(__always)
    mutating func append(ascii text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 bytes of `text` in one copy.
    @inline(__always)
    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
