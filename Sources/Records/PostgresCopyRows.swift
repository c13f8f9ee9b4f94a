/// Rows in the text format of `COPY … FROM STDIN`: fields separated by a tab, rows ended by a newline,
/// NULL as `\N`, and a backslash, tab, newline or carriage return inside a field escaped by a backslash
/// (PostgreSQL's COPY input takes every other byte as it is). What lets a batch of new intents reach
/// the server as one stream that no planner, array parser or conflict check touches
/// (docs/records.md, "PostgreSQL's write path").
struct PostgresCopyRows {
    /// The rows so far.
    private(set) var bytes: [UInt8] = []
    /// Whether the current row has a field (a tab goes before the next one).
    private var rowHasFields = false
    /// The rows ended so far.
    private(set) var rowCount = 0

    /// No rows, with room for about `capacity` bytes.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends a text field (nil: NULL); a NUL byte, which PostgreSQL text cannot hold, is refused.
    mutating func append(_ text: String?) throws(RecordsError) {
        separate()
        guard var text else {
            bytes += [UInt8(ascii: "\\"), UInt8(ascii: "N")]
            return
        }
        let hasNul = text.withUTF8 { utf8 -> Bool in
            // The usual field has nothing to escape: copy it whole.
            guard utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\\") || $0 == 9 || $0 == 10 || $0 == 13 })
            else {
                bytes.append(contentsOf: utf8)
                return false
            }
            for byte in utf8 {
                switch byte {
                case 0: return true
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 9: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 10: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 13: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                default: bytes.append(byte)
                }
            }
            return false
        }
        if hasNul { throw .constraint("PostgreSQL text cannot hold a NUL byte") }
    }

    /// Appends an integer field.
    mutating func append(_ number: Int64) {
        separate()
        bytes += String(number).utf8
    }

    /// Ends the current row.
    mutating func endRow() {
        bytes.append(10)
        rowHasFields = false
        rowCount += 1
    }

    /// A tab before every field of a row but the first.
    private mutating func separate() {
        if rowHasFields { bytes.append(9) }
        rowHasFields = true
    }
}
