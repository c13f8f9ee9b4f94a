/// The field lines of a request, in the order received, as (name, value) pairs.
///
/// Names keep their received case; values are trimmed of surrounding whitespace. Everything lives in
/// one byte buffer (a table of offsets, then the field bytes), so a head's fields cost one allocation
/// however many there are; Strings are made only when a field is read.
public struct HTTPHeaders: Sendable, Sequence {
    /// Offsets (from the start of `storage`) of one field line's name and trimmed value.
    struct Field: Sendable, BitwiseCopyable {
        /// Offset of the name's first byte.
        var nameStart: UInt32
        /// Length of the name.
        var nameLength: UInt32
        /// Offset of the trimmed value's first byte.
        var valueStart: UInt32
        /// Length of the trimmed value.
        var valueLength: UInt32
    }

    /// `count` table entries of `MemoryLayout<Field>.size` bytes, then the bytes they point into.
    var storage: [UInt8]
    /// The number of field lines.
    public private(set) var count: Int

    /// An empty set of fields.
    public init() {
        storage = []
        count = 0
    }

    /// Fields from (name, value) pairs, kept as given (for tests and for building requests).
    public init(_ pairs: some Sequence<(String, String)>) {
        var text: [UInt8] = []
        var fields: [Field] = []
        for (name, value) in pairs {
            let nameStart = text.count
            text.append(contentsOf: name.utf8)
            let valueStart = text.count
            text.append(contentsOf: value.utf8)
            fields.append(
                Field(
                    nameStart: UInt32(nameStart), nameLength: UInt32(valueStart - nameStart),
                    valueStart: UInt32(valueStart), valueLength: UInt32(text.count - valueStart)))
        }
        self = text.withUnsafeBytes { text in
            fields.withUnsafeBufferPointer { HTTPHeaders(text: text, fields: $0) }
        }
    }

    /// Copies `text` and a table of `fields` (offsets relative to `text`) into one buffer.
    init(text: UnsafeRawBufferPointer, fields: UnsafeBufferPointer<Field>) {
        let stride = MemoryLayout<Field>.size
        let tableSize = fields.count * stride
        let shift = UInt32(truncatingIfNeeded: tableSize)
        count = fields.count
        storage = [UInt8](unsafeUninitializedCapacity: tableSize + text.count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for (k, field) in fields.enumerated() {
                var shifted = field
                shifted.nameStart &+= shift
                shifted.valueStart &+= shift
                raw.storeBytes(of: shifted, toByteOffset: k * stride, as: Field.self)
            }
            if let source = text.baseAddress, !text.isEmpty {
                raw.baseAddress!.advanced(by: tableSize).copyMemory(from: source, byteCount: text.count)
            }
            initialized = tableSize + text.count
        }
    }

    /// The table entry of field line `index`.
    @inline(__always)
    func field(_ index: Int) -> Field {
        precondition(index >= 0 && index < count, "header index out of range")
        return storage.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: index * MemoryLayout<Field>.size, as: Field.self)
        }
    }

    /// Whether there are no field lines.
    public var isEmpty: Bool { count == 0 }

    /// The field line at `index` (0-based, in received order).
    public subscript(index: Int) -> (name: String, value: String) {
        let field = field(index)
        return (string(field.nameStart, field.nameLength), string(field.valueStart, field.valueLength))
    }

    /// The value of the first field named `name` (ASCII case-insensitive), or nil.
    public func first(_ name: String) -> String? {
        guard let index = firstIndex(name) else { return nil }
        let field = field(index)
        return string(field.valueStart, field.valueLength)
    }

    /// The values of every field named `name` (ASCII case-insensitive), in received order.
    public func all(_ name: String) -> [String] {
        var values: [String] = []
        var from = 0
        while let index = firstIndex(name, from: from) {
            let field = field(index)
            values.append(string(field.valueStart, field.valueLength))
            from = index + 1
        }
        return values
    }

    /// Whether a field named `name` (ASCII case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(name) != nil
    }

    /// Iterates the (name, value) pairs in received order.
    public func makeIterator() -> Iterator {
        Iterator(headers: self, index: 0)
    }

    /// Iterator over the (name, value) pairs.
    public struct Iterator: IteratorProtocol {
        /// The fields iterated.
        let headers: HTTPHeaders
        /// The next field's index.
        var index: Int

        /// The next pair, or nil at the end.
        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.count else { return nil }
            defer { index += 1 }
            return headers[index]
        }
    }

    /// The index of the first field at or after `from` named `name` (ASCII case-insensitive), or nil.
    private func firstIndex(_ name: String, from: Int = 0) -> Int? {
        var name = name
        return name.withUTF8 { key in
            storage.withUnsafeBytes { raw in
                let stride = MemoryLayout<Field>.size
                for index in from..<Swift.max(from, count) {
                    let field = raw.loadUnaligned(fromByteOffset: index * stride, as: Field.self)
                    guard Int(field.nameLength) == key.count else { continue }
                    let start = Int(field.nameStart)
                    var k = 0
                    while k < key.count && ASCII.lower(raw[start + k]) == ASCII.lower(key[k]) { k += 1 }
                    if k == key.count { return index }
                }
                return nil
            }
        }
    }

    /// Decodes `storage[start..<start+length]` (invalid UTF-8 becomes U+FFFD).
    private func string(_ start: UInt32, _ length: UInt32) -> String {
        storage.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(start)..<Int(start + length)]), as: UTF8.self)
        }
    }

    /// The bytes of `storage[start..<start+length]`.
    private func slice(_ start: UInt32, _ length: UInt32) -> ArraySlice<UInt8> {
        storage[Int(start)..<Int(start + length)]
    }
}

extension HTTPHeaders: Equatable {
    /// Two header sets are equal when they hold the same pairs, byte for byte, in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count {
            let a = lhs.field(index)
            let b = rhs.field(index)
            guard lhs.slice(a.nameStart, a.nameLength) == rhs.slice(b.nameStart, b.nameLength),
                lhs.slice(a.valueStart, a.valueLength) == rhs.slice(b.valueStart, b.valueLength)
            else { return false }
        }
        return true
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The pairs as `name: value` lines, for debugging.
    public var description: String {
        map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
