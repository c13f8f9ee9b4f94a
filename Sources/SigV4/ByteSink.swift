import Crypto

/// Somewhere the signer writes bytes: a growable `[UInt8]` (header signing, diagnostics) or a
/// `ByteWriter` over memory sized in advance (the presigning hot path, no per-byte growth checks).
protocol ByteSink {
    /// Writes one byte.
    mutating func write(_ byte: UInt8)
    /// Writes `bytes`.
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteSink {
    /// Writes `bytes`.
    @inline(__always)
    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// Writes the UTF-8 bytes of `text`.
    @inline(__always)
    mutating func write(utf8 text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { write($0) }
        if done == nil { write(Array(text.utf8)) }
    }

    /// Writes a static ASCII string (a literal: no transcoding, no allocation).
    @inline(__always)
    mutating func write(ascii text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes `value` (not negative) in decimal.
    mutating func write(decimal value: Int) {
        precondition(value >= 0, "only non-negative numbers are written")
        if value >= 10 { write(decimal: value / 10) }
        write(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }

    /// Writes `digest` as 64 lower-case hexadecimal digits.
    mutating func write(hex digest: SHA256Digest) {
        digest.withUnsafeBytes { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { text in
                let digits: StaticString = "0123456789abcdef"
                let table = digits.utf8Start
                for index in 0..<32 {
                    text[2 * index] = table[Int(bytes[index] >> 4)]
                    text[2 * index + 1] = table[Int(bytes[index] & 0x0f)]
                }
                write(UnsafeBufferPointer(text))
            }
        }
    }
}

extension Array: ByteSink where Element == UInt8 {
    /// Appends one byte.
    @inline(__always)
    mutating func write(_ byte: UInt8) { append(byte) }

    /// Appends `bytes`.
    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Writes into memory whose size was computed in advance as an upper bound.
///
/// Running past the end is a programmer mistake in that bound (`precondition`), never a
/// consequence of input: every input length is part of the bound.
struct ByteWriter: ByteSink {
    /// The memory written into.
    let buffer: UnsafeMutableBufferPointer<UInt8>
    /// How many bytes are written.
    private(set) var count = 0

    /// A writer at the start of `buffer`.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// Writes one byte.
    @inline(__always)
    mutating func write(_ byte: UInt8) {
        precondition(count < buffer.count, "ByteWriter: size bound too small")
        buffer[count] = byte
        count += 1
    }

    /// Writes `bytes`.
    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= buffer.count - count, "ByteWriter: size bound too small")
        let destination = buffer.baseAddress! + count
        if bytes.count <= 16 {
            // Most writes are a few bytes; a loop beats a call to memmove.
            for index in 0..<bytes.count { destination[index] = source[index] }
        } else {
            destination.update(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    /// The bytes written from `start` on.
    func written(from start: Int = 0) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[start..<count])
    }
}
