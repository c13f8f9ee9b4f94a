/// The field lines of a request, in the order received, as (name, value) pairs.
///
/// Names keep their received case; values are trimmed of surrounding whitespace. The bytes live in
/// one buffer with one array of offsets, so a head costs two allocations however many fields it has;
/// Strings are made only when a field is read.
public struct HTTPHeaders: Sendable, Sequence {
    /// Offsets of one field line's name and (trimmed) value inside `storage`.
    struct Field: Sendable {
        var nameStart: Int32
        var nameLength: Int32
        var valueStart: Int32
        var valueLength: Int32
    }

    /// The bytes the fields' offsets point into.
    var storage: [UInt8]
    /// One entry per field line.
    var fields: [Field]

    /// An empty set of fields.
    public init() {
        storage = []
        fields = []
    }

    /// Fields from (name, value) pairs, kept as given (for tests and for building requests).
    public init(_ pairs: some Sequence<(String, String)>) {
        storage = []
        fields = []
        for (name, value) in pairs {
            let nameStart = storage.count
            storage.append(contentsOf: name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: value.utf8)
            fields.append(
                Field(
                    nameStart: Int32(nameStart), nameLength: Int32(valueStart - nameStart),
                    valueStart: Int32(valueStart), valueLength: Int32(storage.count - valueStart)))
        }
    }

    /// Wraps parser output: `storage` holds the header section, `fields` point into it.
    init(storage: [UInt8], fields: [Field]) {
        self.storage = storage
        self.fields = fields
    }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// Whether there are no field lines.
    public var isEmpty: Bool { fields.isEmpty }

    /// The field line at `index` (0-based, in received order).
    public subscript(index: Int) -> (name: String, value: String) {
        let field = fields[index]
        return (string(field.nameStart, field.nameLength), string(field.valueStart, field.valueLength))
    }

    /// The value of the first field named `name` (ASCII case-insensitive), or nil.
    public func first(_ name: String) -> String? {
        guard let index = firstIndex(name) else { return nil }
        let field = fields[index]
        return string(field.valueStart, field.valueLength)
    }

    /// The values of every field named `name` (ASCII case-insensitive), in received order.
    public func all(_ name: String) -> [String] {
        var values: [String] = []
        for field in fields where nameMatches(field, name) {
            values.append(string(field.valueStart, field.valueLength))
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
        let headers: HTTPHeaders
        var index: Int

        /// The next pair, or nil at the end.
        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.fields.count else { return nil }
            defer { index += 1 }
            return headers[index]
        }
    }

    /// The index of the first field named `name`, or nil.
    private func firstIndex(_ name: String) -> Int? {
        fields.firstIndex { nameMatches($0, name) }
    }

    /// Whether `field`'s name equals `name` ignoring ASCII case.
    private func nameMatches(_ field: Field, _ name: String) -> Bool {
        let length = Int(field.nameLength)
        guard name.utf8.count == length else { return false }
        var k = Int(field.nameStart)
        for byte in name.utf8 {
            if ASCII.lower(storage[k]) != ASCII.lower(byte) { return false }
            k += 1
        }
        return true
    }

    /// Decodes `storage[start..<start+length]` (invalid UTF-8 becomes U+FFFD).
    private func string(_ start: Int32, _ length: Int32) -> String {
        storage.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(start)..<Int(start + length)]), as: UTF8.self)
        }
    }
}

extension HTTPHeaders: Equatable {
    /// Two header sets are equal when they hold the same pairs, byte for byte, in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        for (a, b) in zip(lhs.fields, rhs.fields) {
            guard a.nameLength == b.nameLength, a.valueLength == b.valueLength,
                lhs.storage[Int(a.nameStart)..<Int(a.nameStart + a.nameLength)]
                    == rhs.storage[Int(b.nameStart)..<Int(b.nameStart + b.nameLength)],
                lhs.storage[Int(a.valueStart)..<Int(a.valueStart + a.valueLength)]
                    == rhs.storage[Int(b.valueStart)..<Int(b.valueStart + b.valueLength)]
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
