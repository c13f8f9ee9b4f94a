/// A secret value (a key, a token, a password) that never prints.
///
/// `description`, `debugDescription` and reflection (`dump`, string interpolation) all show
/// `<redacted>`; the bytes are reachable only through `withUnsafeBytes` or `unredacted`, whose
/// names make every use easy to find in review.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let storage: [UInt8]

    /// Wraps the UTF-8 bytes of `value`.
    public init(_ value: String) { storage = Array(value.utf8) }

    /// Wraps raw bytes.
    public init(bytes: [UInt8]) { storage = bytes }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }

    /// A mirror with no children, so `dump` shows nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// True when the secret holds no bytes.
    public var isEmpty: Bool { storage.isEmpty }

    /// The number of bytes held.
    public var count: Int { storage.count }

    /// Calls `body` with the secret's bytes; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }

    /// The secret as a string, for the few places that must send it (a signature key, a header).
    public var unredacted: String { String(decoding: storage, as: UTF8.self) }

    /// The secret's bytes, for deriving keys.
    public var unredactedBytes: [UInt8] { storage }
}
