import HTTP1
import Testing

/// The bytes of `text` (write `\r\n` explicitly; nothing is added).
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Parses `input` whole and then every proper prefix of it, as a server re-parsing its growing buffer
/// would (one byte per read covers every split point), and checks the streaming property:
/// a prefix of a valid head is `.incomplete`; once the head is complete the result is the whole
/// result; a failing input yields `.incomplete` for short prefixes and then the same failure for
/// every longer prefix. Returns the whole-input result.
@discardableResult
func parseHeadInEveryPrefix(
    _ input: [UInt8], limits: ParserLimits = ParserLimits(), sourceLocation: SourceLocation = #_sourceLocation
) -> HeadParseResult {
    let whole = RequestParser.parseHead(input, limits: limits)
    var firstFailure: Int? = nil
    for length in 0..<input.count {
        let partial = RequestParser.parseHead(input[0..<length], limits: limits)
        switch whole {
        case .complete(_, let consumed):
            let expected: HeadParseResult = length < consumed ? .incomplete : whole
            #expect(partial == expected, "prefix of \(length) bytes", sourceLocation: sourceLocation)
        case .incomplete:
            #expect(partial == .incomplete, "prefix of \(length) bytes", sourceLocation: sourceLocation)
        case .failure:
            if partial == .incomplete {
                #expect(
                    firstFailure == nil, "prefix of \(length) bytes incomplete after failing at \(firstFailure ?? 0)",
                    sourceLocation: sourceLocation)
            } else {
                #expect(partial == whole, "prefix of \(length) bytes", sourceLocation: sourceLocation)
                firstFailure = firstFailure ?? length
            }
        }
    }
    return whole
}

/// The outcome of decoding a whole chunked body, for comparing whole and piecewise decoding.
enum DecodeOutcome: Equatable, CustomStringConvertible {
    /// The body ended after `consumed` bytes of the input.
    case complete(consumed: Int, body: [UInt8])
    /// The input ended inside the body.
    case incomplete(body: [UInt8])
    /// The body is invalid.
    case failure(ParseError)

    var description: String {
        switch self {
        case .complete(let consumed, let body): return "complete(\(consumed), \(body.count) body bytes)"
        case .incomplete(let body): return "incomplete(\(body.count) body bytes)"
        case .failure(let error): return "failure(\(error))"
        }
    }
}

/// Feeds `pieces` of a chunked body to one decoder in turn, as separate reads would.
///
/// `.complete`'s `consumed` counts from the start of the first piece; bytes after it are left unread.
func decodeChunked(
    pieces: [ArraySlice<UInt8>], maxBodyBytes: Int = 1 << 20, limits: ParserLimits = ParserLimits()
) -> DecodeOutcome {
    var decoder = ChunkedDecoder(maxBodyBytes: maxBodyBytes, limits: limits)
    var body: [UInt8] = []
    var offset = 0
    for piece in pieces {
        switch decoder.decode(piece, into: &body) {
        case .incomplete(let consumed):
            guard consumed == piece.count else { return .failure(.badRequest("test: partial consumption")) }
            offset += consumed
        case .complete(let consumed):
            return .complete(consumed: offset + consumed, body: body)
        case .failure(let error):
            return .failure(error)
        }
    }
    return .incomplete(body: body)
}

/// Decodes `input` whole, split in two at every point, and one byte at a time; checks that every way
/// gives the same outcome, and returns it.
@discardableResult
func decodeChunkedInEverySplit(
    _ input: [UInt8], maxBodyBytes: Int = 1 << 20, limits: ParserLimits = ParserLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> DecodeOutcome {
    let whole = decodeChunked(pieces: [input[...]], maxBodyBytes: maxBodyBytes, limits: limits)
    for split in 0...input.count {
        let pieces = [input[0..<split], input[split...]]
        let outcome = decodeChunked(pieces: pieces, maxBodyBytes: maxBodyBytes, limits: limits)
        #expect(outcome == whole, "split at \(split)", sourceLocation: sourceLocation)
    }
    let oneByteAtATime = input.indices.map { input[$0..<($0 + 1)] }
    let outcome = decodeChunked(pieces: oneByteAtATime, maxBodyBytes: maxBodyBytes, limits: limits)
    #expect(outcome == whole, "one byte at a time", sourceLocation: sourceLocation)
    return whole
}

/// What a connection's byte stream amounted to: complete messages, then the end, a partial message
/// or a rejection.
enum StreamVerdict: Equatable {
    /// Every byte belonged to `messages` complete messages.
    case accept(messages: Int)
    /// `messages` complete messages, then an unfinished one.
    case incomplete(messages: Int)
    /// `messages` complete messages, then an error (or data after a message that closes the connection).
    case reject(messages: Int)

    /// The number of complete messages.
    var messages: Int {
        switch self {
        case .accept(let n), .incomplete(let n), .reject(let n): return n
        }
    }
}

/// Plays a server's read loop over `input` delivered in reads of the given sizes: parse a head,
/// skip a Content-Length body or decode a chunked one, repeat.
///
/// Bytes after a non-keep-alive message count as a rejection (the server closes without reading
/// them), and so does a head whose method we do not know (the server answers 501 and closes without
/// running a handler). `skipBodies` ignores body framing (llhttp's `skipBody` test mode).
func runStream(
    _ input: [UInt8], readSizes: [Int]? = nil, limits: ParserLimits = ParserLimits(), skipBodies: Bool = false
) -> StreamVerdict {
    enum Phase {
        case head
        case fixed(remaining: Int)
        case chunked(ChunkedDecoder)
    }
    var reads: [ArraySlice<UInt8>] = []
    var offset = 0
    for size in readSizes ?? [input.count] where offset < input.count {
        let end = min(input.count, offset + size)
        reads.append(input[offset..<end])
        offset = end
    }
    if offset < input.count { reads.append(input[offset...]) }

    var buffer: [UInt8] = []
    var phase = Phase.head
    var messages = 0
    var closed = false
    var keepAlive = true
    var body: [UInt8] = []
    for read in reads {
        if closed && !read.isEmpty { return .reject(messages: messages) }
        buffer.append(contentsOf: read)
        progress: while true {
            var finished = false
            switch phase {
            case .head:
                if buffer.isEmpty { break progress }
                switch RequestParser.parseHead(buffer, limits: limits) {
                case .incomplete:
                    break progress
                case .failure:
                    return .reject(messages: messages)
                case .complete(let head, let consumed):
                    if head.method == nil { return .reject(messages: messages) }
                    buffer.removeFirst(consumed)
                    keepAlive = head.keepAlive
                    if skipBodies {
                        finished = true
                    } else if head.isChunked {
                        phase = .chunked(ChunkedDecoder(maxBodyBytes: 1 << 20, limits: limits))
                    } else if let length = head.contentLength, length > 0 {
                        phase = .fixed(remaining: length)
                    } else {
                        finished = true
                    }
                }
            case .fixed(let remaining):
                let take = min(remaining, buffer.count)
                buffer.removeFirst(take)
                if take == remaining {
                    finished = true
                } else {
                    phase = .fixed(remaining: remaining - take)
                    break progress
                }
            case .chunked(var decoder):
                let step = decoder.decode(buffer, into: &body)
                phase = .chunked(decoder)
                switch step {
                case .incomplete(let consumed):
                    buffer.removeFirst(consumed)
                    break progress
                case .complete(let consumed):
                    buffer.removeFirst(consumed)
                    finished = true
                case .failure:
                    return .reject(messages: messages)
                }
            }
            if finished {
                messages += 1
                phase = .head
                if !keepAlive {
                    closed = true
                    if !buffer.isEmpty { return .reject(messages: messages) }
                    break progress
                }
            }
        }
    }
    if case .head = phase, buffer.isEmpty { return .accept(messages: messages) }
    return .incomplete(messages: messages)
}
