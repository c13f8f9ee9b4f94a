/// Why a format decoder stopped before it found the size (internal: mapped to a result by `ImageProbe`).
enum ProbeStop: Error, Equatable {
    /// The bytes needed lie past the bytes given, but within the object.
    case beyond
    /// The bytes needed lie past the end of the object.
    case truncated
    /// The header breaks its specification or a limit.
    case malformed(ImageDefect)
}
