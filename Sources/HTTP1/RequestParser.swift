/// Parses request heads (RFC 9112 §2-§7) under the strict profile; stateless, so a caller simply
/// re-parses its buffer when more bytes arrive.
///
/// Errors are detected in byte order: when a prefix of some input fails, the whole input fails the
/// same way, and a prefix of a valid head is `.incomplete`. Leading empty lines: exactly one CRLF
/// before the request line is ignored (RFC 9112 §2.2 "at least one"); a second one is a 400.
///
/// Re-parsing costs O(buffer) per read; a server facing byte-at-a-time clients may skip the call
/// until a read brings an LF or the buffer passes `maxHeaderBytes` (the verdict is the same, only
/// errors inside an unfinished line are reported later).
public enum RequestParser {
    /// Parses the head at the start of `bytes`.
    public static func parseHead(
        _ bytes: UnsafeRawBufferPointer, limits: ParserLimits = ParserLimits()
    ) -> HeadParseResult {
        let scanner = HeadScanner(bytes: bytes, limits: limits)
        do {
            let (head, consumed) = try scanner.scan()
            return .complete(head, consumed: consumed)
        } catch {
            switch error {
            case .incomplete: return .incomplete
            case .failure(let parseError): return .failure(parseError)
            }
        }
    }

    /// Parses the head at the start of `bytes`.
    public static func parseHead(_ bytes: [UInt8], limits: ParserLimits = ParserLimits()) -> HeadParseResult {
        bytes.withUnsafeBytes { parseHead($0, limits: limits) }
    }

    /// Parses the head at the start of `bytes` (`consumed` counts from `bytes.startIndex`).
    public static func parseHead(
        _ bytes: ArraySlice<UInt8>, limits: ParserLimits = ParserLimits()
    ) -> HeadParseResult {
        bytes.withUnsafeBytes { parseHead($0, limits: limits) }
    }
}
