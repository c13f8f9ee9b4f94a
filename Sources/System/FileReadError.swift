/// Why `FileReader.readAll(atPath:limit:)` could not read a file.
public enum FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `open` failed; `reason` is the system's text for `errno`.
    case cannotOpen(path: String, reason: String)
    /// `read` failed; `reason` is the system's text for `errno`.
    case cannotRead(path: String, reason: String)
    /// The file is larger than `limit` bytes.
    case tooLarge(path: String, limit: Int)

    /// The reason, without the path (messages name the path themselves).
    public var description: String {
        switch self {
        case .cannotOpen(_, let reason): return reason
        case .cannotRead(_, let reason): return reason
        case .tooLarge(_, let limit): return "larger than \(limit) bytes"
        }
    }
}
