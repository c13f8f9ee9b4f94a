import CFuzzShim
import HTTP1

/// Small limits, so that short fuzz inputs reach the 431/414/413 paths too.
let smallLimits = ParserLimits(
    maxHeaderBytes: 200, maxHeaderLines: 6, maxTargetBytes: 40, maxTrailerBytes: 40, maxChunkExtensionBytes: 12)

/// A split point in `0...count` derived from the data, so each input also tests one particular split.
func splitPoint(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard !bytes.isEmpty else { return 0 }
    let mix = Int(bytes[0]) &* 131 &+ Int(bytes[bytes.count / 2]) &* 7 &+ Int(bytes[bytes.count - 1])
    return mix % (bytes.count + 1)
}

/// Parses `bytes` as a head and checks the parser's properties; returns the whole-input result.
///
/// * consumed stays within the input and the head limit, and a complete head is self-consistent;
/// * the same bytes at another address (a slice at offset 1) give the same result;
/// * the prefix up to a data-derived split is `.incomplete` or already the final verdict, and
///   parsing again once the rest has arrived (the incremental path a server takes) gives exactly
///   the whole-input verdict.
func checkHead(_ bytes: UnsafeRawBufferPointer, limits: ParserLimits) -> HeadParseResult {
    let whole = RequestParser.parseHead(bytes, limits: limits)
    if case .complete(let head, let consumed) = whole {
        precondition(consumed > 0 && consumed <= bytes.count, "consumed out of range")
        precondition(consumed <= limits.maxHeaderBytes, "head over maxHeaderBytes accepted")
        let exact = RequestParser.parseHead(UnsafeRawBufferPointer(rebasing: bytes[0..<consumed]), limits: limits)
        precondition(exact == whole, "head depends on the bytes after it")
        precondition(head.versionMinor == 0 || head.versionMinor == 1, "bad version")
        precondition(head.versionMinor == 0 || head.host != nil, "HTTP/1.1 without Host accepted")
        precondition(!(head.isChunked && head.contentLength != nil), "both TE and CL accepted")
        precondition(head.headers.count <= limits.maxHeaderLines, "too many lines accepted")
        precondition(head.target.utf8.count <= limits.maxTargetBytes, "target over maxTargetBytes accepted")
        precondition(head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }, "bad target byte accepted")
        var seen: [String: String] = [:]
        for (name, value) in head.headers {
            precondition(!name.isEmpty && !name.utf8.contains(0x3A), "bad header name")
            precondition(!value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "CTL in value accepted")
            let key = String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            if seen[key] == nil { seen[key] = value }
            precondition(head.headers.first(name) == seen[key], "first(_:) disagrees with iteration")
        }
        precondition(head.host == head.headers.first("host"), "host disagrees with the Host field")
        precondition(head.headers.all("host").count == (head.host == nil ? 0 : 1), "Host count")
    }

    var shifted: [UInt8] = [0xAA]
    shifted.append(contentsOf: bytes)
    precondition(RequestParser.parseHead(shifted[1...], limits: limits) == whole, "result depends on the address")

    let split = splitPoint(bytes)
    let prefix = RequestParser.parseHead(UnsafeRawBufferPointer(rebasing: bytes[0..<split]), limits: limits)
    switch whole {
    case .complete(_, let consumed):
        precondition(prefix == (split < consumed ? .incomplete : whole), "prefix of a valid head differs")
    case .incomplete:
        precondition(prefix == .incomplete, "prefix of an incomplete head is not incomplete")
    case .failure:
        precondition(prefix == .incomplete || prefix == whole, "prefix fails differently from the whole")
    }
    // The incremental path: a first read of `split` bytes, then the rest appended to the buffer.
    var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<split]))
    let first = RequestParser.parseHead(buffer, limits: limits)
    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[split...]))
    let second = first == .incomplete ? RequestParser.parseHead(buffer, limits: limits) : first
    precondition(second == whole, "incremental parse differs from the whole")
    return whole
}

/// What a decoder made of a body: its final step (consumed counted from the body's start) and data.
struct DecodeRun: Equatable {
    var step: ChunkedDecoder.Step
    var body: [UInt8]
}

/// Decodes `bytes` as a chunked body delivered in the given pieces.
func decode(_ bytes: UnsafeRawBufferPointer, cuts: [Int], maxBodyBytes: Int, limits: ParserLimits) -> DecodeRun {
    var decoder = ChunkedDecoder(maxBodyBytes: maxBodyBytes, limits: limits)
    var body: [UInt8] = []
    var start = 0
    for end in cuts + [bytes.count] where end >= start {
        let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        switch decoder.decode(piece, into: &body) {
        case .incomplete(let consumed):
            precondition(consumed == piece.count, "incomplete without consuming the input")
            start = end
        case .complete(let consumed):
            precondition(consumed <= piece.count, "consumed out of range")
            precondition(decoder.decode(piece, into: &body) == .complete(consumed: 0), "not final")
            return DecodeRun(step: .complete(consumed: start + consumed), body: body)
        case .failure(let error):
            return DecodeRun(step: .failure(error), body: [])
        }
    }
    return DecodeRun(step: .incomplete(consumed: bytes.count), body: body)
}

/// Decodes `bytes` whole, split at a data-derived point, and in small data-derived pieces (one byte
/// at a time for short inputs); all must agree.
func checkChunked(_ bytes: UnsafeRawBufferPointer, limits: ParserLimits) {
    let maxBodyBytes = 1 + (bytes.isEmpty ? 0 : Int(bytes[0]) &* 16)
    let whole = decode(bytes, cuts: [], maxBodyBytes: maxBodyBytes, limits: limits)
    precondition(whole.body.count <= maxBodyBytes, "body over maxBodyBytes")
    let split = decode(bytes, cuts: [splitPoint(bytes)], maxBodyBytes: maxBodyBytes, limits: limits)
    precondition(split == whole, "split decode differs")
    let stride = bytes.count <= 256 ? 1 : 1 + splitPoint(bytes) % 13
    let pieces = decode(
        bytes, cuts: Array(Swift.stride(from: 0, to: bytes.count, by: stride)),
        maxBodyBytes: maxBodyBytes, limits: limits)
    precondition(pieces == whole, "piecewise decode differs")
}

/// One fuzz input = the bytes a client sent on one connection.
///
/// Properties checked on every input (a violated precondition is a crash = a finding): no trap or
/// hang in the parser or decoder; consumed counts within the input; the same verdict whole and
/// split; a chunked body after a complete head decodes the same however it is cut.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    for limits in [ParserLimits(), smallLimits] {
        if case .complete(let head, let consumed) = checkHead(bytes, limits: limits), head.isChunked {
            checkChunked(UnsafeRawBufferPointer(rebasing: bytes[consumed...]), limits: limits)
        }
    }
    // The decoder also sees every input as a body, so its grammar is explored without a head.
    checkChunked(bytes, limits: smallLimits)
    return 0
}

// SwiftPM links every executable with `--defsym main=<Module>_main`; with
// -parse-as-library nothing defines that symbol (swiftlang/swift-package-manager#8731),
// so define it here and hand control to libFuzzer's driver.
@_cdecl("FuzzHTTP1_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v) { data, size in fuzzTestOneInput(data, size) }
}
