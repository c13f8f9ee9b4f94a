/// Rows in the binary format of `COPY … FROM STDIN (FORMAT binary)`: a signature, then each row as its
/// number of fields (16 bits) and each field as its length (32 bits, -1 for NULL) and bytes, then a
/// trailer of -1; integers big-endian, text as its UTF-8 bytes, a bigint as 8 bytes (PostgreSQL docs,
/// "COPY", "Binary Format"). What lets a batch of new intents reach the server as one stream that no
/// planner, array parser or conflict check touches (docs/records.md, "PostgreSQL's write path").
///
/// Why binary rather than text: the server reads a field by its length instead of scanning every byte
/// for a tab, newline or backslash and parsing numbers from digits (a 200,000-row copy of the intents'
/// shape cost the server 7.3–8.4 µs per row in binary against 9.0–9.5 in text, docs/benchmarks.md),
/// and nothing here has to be escaped.
struct PostgresCopyRows {
    /// The signature, the flags (none) and the length of the header extension (none).
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    /// The header and the rows so far.
    private var buffer: [UInt8] = []
    /// Where the current row's field count goes, once it has a field.
    private var rowStart: Int?
    /// The current row's fields.
    private var fieldsInRow = 0
    /// The rows ended so far.
    private(set) var rowCount = 0

    /// No rows, with room for about `capacity` bytes.
    init(capacity: Int = 0) {
        buffer.reserveCapacity(Self.header.count + capacity + 2)
        buffer += Self.header
    }

    /// The stream to send: the header, the rows ended so far and the trailer.
    var bytes: [UInt8] { buffer + [0xFF, 0xFF] }

    /// Appends a text field (nil: NULL); a NUL byte, which PostgreSQL text cannot hold, is refused.
    mutating func append(_ text: String?) throws(RecordsError) {
        startField()
        guard var text else {
            appendBigEndian(UInt32(bitPattern: -1))
            return
        }
        let fine = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(0) else { return false }
            appendBigEndian(UInt32(utf8.count))
            buffer.append(contentsOf: utf8)
            return true
        }
        if !fine { throw .constraint("PostgreSQL text cannot hold a NUL byte") }
    }

    /// Appends a bigint field.
    mutating func append(_ number: Int64) {
        startField()
        appendBigEndian(UInt32(8))
        appendBigEndian(UInt64(bitPattern: number))
    }

    /// Appends a bigint field, or NULL.
    mutating func append(optional number: Int64?) {
        guard let number else {
            startField()
            appendBigEndian(UInt32(bitPattern: -1))
            return
        }
        append(number)
    }

    /// Ends the current row: its field count goes in front of it.
    mutating func endRow() {
        let start = rowStart ?? reserveCount()
        buffer[start] = UInt8(truncatingIfNeeded: fieldsInRow >> 8)
        buffer[start + 1] = UInt8(truncatingIfNeeded: fieldsInRow)
        rowStart = nil
        fieldsInRow = 0
        rowCount += 1
    }

    /// Counts a field of the current row, making room for the row's field count before its first.
    private mutating func startField() {
        if rowStart == nil { rowStart = reserveCount() }
        fieldsInRow += 1
    }

    /// Two bytes for a row's field count, filled in by `endRow`; where they are.
    private mutating func reserveCount() -> Int {
        buffer += [0, 0]
        return buffer.count - 2
    }

    /// Appends `value`'s bytes, most significant first.
    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }
}
