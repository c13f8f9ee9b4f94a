/// Decodes a `chunked` request body (RFC 9112 §7.1), resumable across reads.
///
/// A byte-level state machine: feed it whatever has arrived; it appends the chunk data to `body`
/// and keeps its place. Chunk sizes are at most 16 hex digits and must not overflow; extensions
/// are checked for syntax (`;name[=token|"quoted"]`, whitespace only after `;` and around `=`),
/// bounded and ignored; trailer fields are checked like header fields, bounded and discarded.
/// The body limit is enforced from the chunk-size line, before any of the chunk's data is read.
public struct ChunkedDecoder: Sendable {
    /// Where in the chunked grammar the next byte falls.
    enum State: UInt8, Sendable {
        case size
        case extensionBeforeName
        case extensionName
        case extensionAfterName
        case extensionBeforeValue
        case extensionToken
        case extensionQuoted
        case extensionQuotedPair
        case extensionAfterValue
        case sizeLF
        case data
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerName
        case trailerValue
        case trailerLF
        case finalLF
        case done
        case failed
    }

    /// The largest decoded body accepted (over it: 413).
    public let maxBodyBytes: Int
    /// Trailer and extension limits.
    public let limits: ParserLimits
    /// The current grammar position.
    var state: State = .size
    /// The error, once `state` is `.failed`.
    var failure: ParseError? = nil
    /// The chunk size read so far (in `.size`), then the bytes of the chunk still to copy (in `.data`).
    var chunkRemaining = 0
    /// Hex digits read in the current chunk-size.
    var sizeDigits = 0
    /// Bytes of chunk extensions on the current chunk line.
    var extensionBytes = 0
    /// Bytes of the trailer section so far.
    var trailerBytes = 0
    /// Trailer field lines so far.
    var trailerLines = 0
    /// Body bytes announced by the chunk-size lines read so far (checked against `maxBodyBytes`).
    var announcedBytes = 0

    /// Creates a decoder for one body.
    public init(maxBodyBytes: Int, limits: ParserLimits = ParserLimits()) {
        precondition(maxBodyBytes >= 0, "maxBodyBytes must not be negative")
        self.maxBodyBytes = maxBodyBytes
        self.limits = limits
    }

    /// The result of one `decode` call.
    public enum Step: Sendable, Equatable {
        /// All `consumed` bytes (the whole input) were used; the body continues in later input.
        case incomplete(consumed: Int)
        /// The body ended after `consumed` bytes of this input; the rest belongs to the next request.
        case complete(consumed: Int)
        /// The body is invalid; answer `error.status` and close the connection.
        case failure(ParseError)
    }

    /// Whether the whole body (last chunk and trailers) has been decoded.
    public var isComplete: Bool { state == .done }

    /// Decodes `bytes`, appending chunk data to `body`.
    ///
    /// After `.complete` further calls return `.complete(consumed: 0)`; after `.failure` they return
    /// the same failure.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, into body: inout [UInt8]) -> Step {
        if let failure { return .failure(failure) }
        if state == .done { return .complete(consumed: 0) }
        var i = 0
        let count = bytes.count
        while i < count {
            if state == .data {
                let take = min(chunkRemaining, count &- i)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i &+ take)]))
                i &+= take
                chunkRemaining &-= take
                if chunkRemaining == 0 { state = .dataCR }
                continue
            }
            if let error = step(bytes[i]) {
                state = .failed
                failure = error
                return .failure(error)
            }
            i &+= 1
            if state == .done { return .complete(consumed: i) }
        }
        return .incomplete(consumed: count)
    }

    /// Decodes `bytes`, appending chunk data to `body`.
    public mutating func decode(_ bytes: [UInt8], into body: inout [UInt8]) -> Step {
        bytes.withUnsafeBytes { decode($0, into: &body) }
    }

    /// Decodes `bytes`, appending chunk data to `body`.
    public mutating func decode(_ bytes: ArraySlice<UInt8>, into body: inout [UInt8]) -> Step {
        bytes.withUnsafeBytes { decode($0, into: &body) }
    }
}
