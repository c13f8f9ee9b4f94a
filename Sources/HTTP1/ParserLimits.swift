/// Size and count limits the request parser and chunked decoder enforce (the strict profile's figures).
public struct ParserLimits: Sendable, Equatable {
    /// Largest request head in bytes: request line, every field line and the final CRLF (over it: 431).
    public var maxHeaderBytes: Int
    /// Most field lines in a head or a trailer section (over it: 431).
    public var maxHeaderLines: Int
    /// Longest request-target in bytes (over it: 414, reported before the head limit).
    public var maxTargetBytes: Int
    /// Largest trailer section of a chunked body, final CRLF included (over it: 431).
    public var maxTrailerBytes: Int
    /// Longest chunk-extension text on one chunk line, from the first `;` (over it: 400).
    public var maxChunkExtensionBytes: Int

    /// Creates limits; the defaults are those of the strict profile (8 KiB head, 100 lines, 8 KiB target).
    public init(
        maxHeaderBytes: Int = 8192,
        maxHeaderLines: Int = 100,
        maxTargetBytes: Int = 8192,
        maxTrailerBytes: Int = 8192,
        maxChunkExtensionBytes: Int = 1024
    ) {
        precondition(maxHeaderBytes > 0 && maxHeaderBytes <= Int(Int32.max), "maxHeaderBytes out of range")
        precondition(maxHeaderLines >= 0 && maxTargetBytes > 0, "limits must be positive")
        precondition(maxTrailerBytes >= 2 && maxChunkExtensionBytes >= 0, "limits must be positive")
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderLines = maxHeaderLines
        self.maxTargetBytes = maxTargetBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxChunkExtensionBytes = maxChunkExtensionBytes
    }
}
