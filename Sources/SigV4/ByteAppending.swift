/// Appending text and numbers to the byte buffers the signer writes into.
extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text`.
    mutating func append(utf8 text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if done == nil { append(contentsOf: Array(text.utf8)) }
    }

    /// Appends `value` (not negative) in decimal.
    mutating func append(decimal value: Int) {
        precondition(value >= 0, "only non-negative numbers are written")
        if value >= 10 { append(decimal: value / 10) }
        append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }
}
