/// Writes compact JSON straight into a byte buffer, with commas placed automatically.
///
/// Built for the hot path: no Foundation, no intermediate `String`s, integers formatted on the
/// stack. The caller pairs every `key` with one value and balances `begin`/`end`; nothing checks.
///
///     var writer = JSONWriter()
///     writer.beginObject()
///     writer.key("presignedUrl"); writer.string(url)
///     writer.key("expiresIn"); writer.int(600)
///     writer.endObject()
///     send(writer.bytes)
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8]

    /// True when the next value or key follows a sibling and needs a comma first.
    private var needsComma = false

    /// A writer with an empty buffer of `capacity` bytes reserved.
    public init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer that appends after the existing contents of `buffer` (a response head, say).
    public init(appendingTo buffer: [UInt8]) {
        bytes = buffer
    }

    /// Clears the buffer, keeping its capacity, to write another document.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// Writes the comma that separates this value from the previous sibling, if any.
    @inline(__always)
    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// `{`.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// `}`.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[`.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// `]`.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member name and its `:`; the next call writes the member's value.
    public mutating func key(_ name: String) {
        separate()
        Self.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value, escaped.
    public mutating func string(_ value: String) {
        separate()
        Self.appendQuoted(value, to: &bytes)
        needsComma = true
    }

    /// A string value given as UTF-8 bytes (which the caller guarantees are well-formed), escaped.
    public mutating func string(utf8 value: UnsafeRawBufferPointer) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.withMemoryRebound(to: UInt8.self) { Self.appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string value given as UTF-8 bytes (which the caller guarantees are well-formed), escaped.
    public mutating func string(utf8 value: [UInt8]) {
        value.withUnsafeBytes { string(utf8: $0) }
    }

    /// An integer value.
    public mutating func int(_ value: Int64) {
        separate()
        Self.appendDecimal(value, to: &bytes)
        needsComma = true
    }

    /// An integer value.
    public mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// A number value, written as its literal.
    public mutating func number(_ value: JSONNumber) {
        separate()
        bytes.append(contentsOf: value.literal.utf8)
        needsComma = true
    }

    /// A floating-point value; NaN and infinities, which JSON cannot hold, are written as `null`.
    public mutating func double(_ value: Double) {
        guard let number = JSONNumber(value) else { return null() }
        self.number(number)
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        appendStatic(value ? "true" : "false")
        needsComma = true
    }

    /// `null`.
    public mutating func null() {
        separate()
        appendStatic("null")
        needsComma = true
    }

    /// Appends the bytes of a literal without building an array.
    @inline(__always)
    private mutating func appendStatic(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A value that is already encoded JSON, copied as is (the caller vouches for it).
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// A value that is already encoded JSON, copied as is (the caller vouches for it).
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }
}
