/// A PostgreSQL array literal in the text format (`{"a","b",NULL}`), built element by element: what
/// lets a whole batch travel as one parameter per column (`unnest($1::text[], …)`), so the statement's
/// text is fixed and prepared once, and a batch is one round trip whatever its size.
///
/// Every text element is double-quoted with `\` and `"` escaped by a backslash (PostgreSQL's array
/// input then takes it byte for byte, braces, commas and spaces included); nil is an unquoted `NULL`.
struct PostgresArray {
    /// The literal so far, without its closing brace.
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    /// Whether an element was appended (a comma goes before the next one).
    private var hasElements = false

    /// An empty array, with room for about `capacity` bytes.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends a text element (nil: NULL); a NUL byte, which PostgreSQL text cannot hold, is refused.
    mutating func append(_ text: String?) throws(RecordsError) {
        separate()
        guard var text else {
            bytes += "NULL".utf8
            return
        }
        bytes.append(UInt8(ascii: "\""))
        let hasNul = text.withUTF8 { utf8 -> Bool in
            // The usual element has nothing to escape: copy it whole.
            guard utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                bytes.append(contentsOf: utf8)
                return false
            }
            for byte in utf8 {
                switch byte {
                case 0: return true
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
                default: bytes.append(byte)
                }
            }
            return false
        }
        if hasNul { throw .constraint("PostgreSQL text cannot hold a NUL byte") }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer element.
    mutating func append(_ number: Int64) {
        separate()
        bytes += String(number).utf8
    }

    /// Appends an integer element, or NULL.
    mutating func append(optional number: Int64?) {
        guard let number else {
            separate()
            bytes += "NULL".utf8
            return
        }
        append(number)
    }

    /// Appends a bytea element in PostgreSQL's hex input form (`\x` and two hex digits a byte), so any
    /// bytes travel inside a text literal and are cast back exactly (`$n::bytea[]`).
    mutating func append(bytea: [UInt8]) {
        separate()
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.reserveCapacity(bytes.count + 5 + 2 * bytea.count)
        // `"\\x…"`: the array literal's escaped backslash is the one bytea's hex form begins with.
        bytes += [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")]
        for byte in bytea {
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The literal, closed.
    var literal: String {
        var closed = bytes
        closed.append(UInt8(ascii: "}"))
        return String(decoding: closed, as: UTF8.self)
    }

    /// A comma before every element but the first.
    private mutating func separate() {
        if hasElements { bytes.append(UInt8(ascii: ",")) }
        hasElements = true
    }
}
