extension JSONValue {
    /// Appends the compact JSON text of this value (members in stored order) to `buffer`.
    public func serialize(into buffer: inout [UInt8]) {
        var writer = JSONWriter(appendingTo: buffer)
        buffer = []
        write(to: &writer)
        buffer = writer.bytes
    }

    /// The compact JSON text of this value.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// The compact JSON text of this value, as a `String`.
    public var jsonText: String { String(decoding: serialized(), as: UTF8.self) }

    /// Writes this value through `writer`.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let value): writer.number(value)
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for member in object {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// Human-readable JSON text: objects and nested arrays one member per line, indented by
    /// `indent` spaces; arrays that hold no array or object on one line (`["a", "b"]`); a final newline.
    public func prettyPrinted(indent: Int = 2) -> String {
        var buffer: [UInt8] = []
        writePretty(into: &buffer, indent: indent, level: 0)
        buffer.append(0x0A)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// True for null, Booleans, numbers and strings.
    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    /// The pretty form of this value at nesting `level`.
    private func writePretty(into buffer: inout [UInt8], indent: Int, level: Int) {
        func newline(_ level: Int) {
            buffer.append(0x0A)
            buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
        }
        switch self {
        case .array(let elements) where elements.allSatisfy(\.isScalar):
            buffer.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { buffer.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                element.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                newline(level + 1)
                element.writePretty(into: &buffer, indent: indent, level: level + 1)
            }
            newline(level)
            buffer.append(UInt8(ascii: "]"))
        case .object(let object) where object.isEmpty:
            buffer.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (position, member) in object.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONWriter.appendQuoted(member.key, to: &buffer)
                buffer.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                member.value.writePretty(into: &buffer, indent: indent, level: level + 1)
            }
            newline(level)
            buffer.append(UInt8(ascii: "}"))
        default:
            serialize(into: &buffer)
        }
    }
}
