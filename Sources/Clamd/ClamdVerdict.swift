/// What clamd said of a stream (`INSTREAM`'s answer).
public enum ClamdVerdict: Sendable, Equatable {
    /// `stream: OK`: no signature matched.
    case clean
    /// `stream: <Name> FOUND`: the signature `Name` matched.
    case found(signature: String)
    /// `INSTREAM size limit exceeded. ERROR`: the stream was longer than clamd's `StreamMaxLength`.
    case tooLarge

    /// The verdict in clamd's reply `text` (without its terminating NUL or newline); `.protocolError` for an
    /// `ERROR` reply or one of no known shape.
    public static func parse(_ text: String) throws(ClamdError) -> ClamdVerdict {
        var reply = Substring(text)
        while let last = reply.last, last == "\n" || last == "\0" || last == "\r" { reply = reply.dropLast() }
        if reply.hasPrefix("INSTREAM size limit exceeded") { return .tooLarge }
        guard reply.hasPrefix("stream: ") else {
            throw .protocolError("unexpected reply \"\(reply.prefix(200))\"")
        }
        let body = reply.dropFirst("stream: ".count)
        if body == "OK" { return .clean }
        if body.hasSuffix(" FOUND") {
            let name = body.dropLast(" FOUND".count)
            guard !name.isEmpty else { throw .protocolError("a FOUND reply without a signature name") }
            return .found(signature: String(name))
        }
        throw .protocolError("unexpected reply \"\(reply.prefix(200))\"")
    }

    /// The header of one `INSTREAM` chunk of `length` bytes: the length as 4 bytes, big-endian (a zero
    /// length ends the stream).
    public static func chunkHeader(_ length: Int) -> [UInt8] {
        let value = UInt32(truncatingIfNeeded: length)
        return [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
