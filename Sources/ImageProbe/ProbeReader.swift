/// A bounds-checked view of the bytes under inspection that records how far into them the result looks.
///
/// Every read goes through `need`, which never lets an offset past the bytes given and tells apart
/// "past the bytes given" (`.beyond`) from "past the object's end" (`.truncated`). Offsets are checked by
/// subtraction, so no size taken from the input can overflow.
struct ProbeReader {
    /// The bytes given (at most `ImageProbeLimits.maxBytes`).
    let bytes: UnsafeRawBufferPointer
    /// The length of the whole object: at least `bytes.count`.
    let total: Int
    /// One past the last byte the result so far depends on.
    private(set) var used: Int = 0

    /// A reader over `bytes`, the start of an object of `total` bytes.
    init(bytes: UnsafeRawBufferPointer, total: Int) {
        self.bytes = bytes
        self.total = max(total, bytes.count)
    }

    /// The number of bytes given.
    var count: Int { bytes.count }

    /// Requires `length` bytes at `offset`: `.truncated` past the object, `.beyond` past the bytes given.
    mutating func need(_ offset: Int, _ length: Int) throws(ProbeStop) {
        guard offset >= 0, length >= 0, offset <= total, length <= total - offset else { throw .truncated }
        guard offset <= bytes.count, length <= bytes.count - offset else {
            used = bytes.count
            throw .beyond
        }
        used = max(used, offset + length)
    }

    /// Requires `length` bytes at `offset` to lie within the object, without reading them.
    func within(_ offset: Int, _ length: Int) throws(ProbeStop) {
        guard offset >= 0, length >= 0, offset <= total, length <= total - offset else { throw .truncated }
    }

    /// The byte at `offset`.
    mutating func u8(_ offset: Int) throws(ProbeStop) -> UInt8 {
        try need(offset, 1)
        return bytes[offset]
    }

    /// The big-endian 16-bit value at `offset`.
    mutating func be16(_ offset: Int) throws(ProbeStop) -> UInt16 {
        try need(offset, 2)
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// The big-endian 24-bit value at `offset`.
    mutating func be24(_ offset: Int) throws(ProbeStop) -> UInt32 {
        try need(offset, 3)
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    /// The big-endian 32-bit value at `offset`.
    mutating func be32(_ offset: Int) throws(ProbeStop) -> UInt32 {
        try need(offset, 4)
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[offset + i]) }
        return value
    }

    /// The big-endian 64-bit value at `offset`.
    mutating func be64(_ offset: Int) throws(ProbeStop) -> UInt64 {
        try need(offset, 8)
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// The little-endian 16-bit value at `offset`.
    mutating func le16(_ offset: Int) throws(ProbeStop) -> UInt16 {
        try need(offset, 2)
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// The little-endian 24-bit value at `offset`.
    mutating func le24(_ offset: Int) throws(ProbeStop) -> UInt32 {
        try need(offset, 3)
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    /// The little-endian 32-bit value at `offset`.
    mutating func le32(_ offset: Int) throws(ProbeStop) -> UInt32 {
        try need(offset, 4)
        var value: UInt32 = 0
        for i in (0..<4).reversed() { value = value << 8 | UInt32(bytes[offset + i]) }
        return value
    }
}
