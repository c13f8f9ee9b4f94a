/// Where a streamed response body goes, piece by piece as it arrives (each piece valid only during the
/// call).
public typealias BodySink = (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void

extension HTTPClient {
    /// Sends `request` to `address` and hands a 2xx response's body to `sink` as it arrives, holding no
    /// more of it than one read (32 KiB) and what the chunked decoder makes of it: an object of any size
    /// is read in bounded memory (a checksum taken at confirmation, `S3Client.digests`). The answer is
    /// the response with an empty body; any other status's body is read whole, as `send` reads it.
    ///
    /// The response head must arrive within `requestTimeoutMs`, and after it each read within
    /// `requestTimeoutMs` of the one before (a stall, not the length of the whole body, times out: a
    /// large object takes as long as it takes). A pooled connection that breaks before any byte of the
    /// answer is retried once on a fresh one, as `send` does; nothing reached `sink` then.
    public func stream(_ request: HTTPRequest, to address: ServerAddress, into sink: BodySink)
        throws(HTTPClientError) -> HTTPResponse
    {
        // The sink is kept only for this call: it never outlives the exchange.
        let outcome: Result<HTTPResponse, HTTPClientError> = withoutActuallyEscaping(sink) { sink in
            do throws(HTTPClientError) {
                return .success(try stream(request, to: address, escaping: sink))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// `stream(_:to:into:)` with the sink as an escaping value (the exchange keeps it in an optional).
    private func stream(_ request: HTTPRequest, to address: ServerAddress, escaping sink: @escaping BodySink)
        throws(HTTPClientError) -> HTTPResponse
    {
        let deadline = Deadline.after(milliseconds: options.requestTimeoutMs)
        let encoded = Self.encode(request, authority: address.authority)
        if let pooled = pool.checkOut(address) {
            do throws(ExchangeFailure) {
                return try exchange(on: pooled, encoded, request: request, deadline: deadline, streaming: sink)
            } catch {
                guard error.beforeResponse, case .connection = error.error, Self.isIdempotent(request.method) else {
                    throw error.error
                }
            }
        }
        let connection = try connect(to: address, deadline: deadline)
        do throws(ExchangeFailure) {
            return try exchange(on: connection, encoded, request: request, deadline: deadline, streaming: sink)
        } catch {
            throw error.error
        }
    }
}

extension ResponseReader {
    /// Hands the body framed by `framing` to `sink` as it arrives (the bytes after the head first),
    /// moving the deadline on after every read; whether the connection can be reused after it.
    mutating func stream(_ framing: BodyFraming, keepsAlive: Bool, to sink: BodySink) throws(HTTPClientError)
        -> Bool
    {
        let stall = options.requestTimeoutMs
        var reusable = keepsAlive
        switch framing {
        case .none:
            break
        case .length(let length):
            var left = length
            while true {
                let take = min(left, buffer.count)
                if take > 0 {
                    try buffer.withBytes { (bytes) throws(HTTPClientError) in
                        try sink(UnsafeRawBufferPointer(rebasing: bytes[..<take]))
                    }
                    buffer.removeFirst(take)
                    left -= take
                }
                if left == 0 { break }
                deadline = Deadline.after(milliseconds: stall)
                guard try fill() else { throw closedEarly(left) }
            }
        case .chunked:
            var decoder = ChunkedBodyDecoder()
            var piece = [UInt8]()
            while true {
                let consumed = try buffer.withBytes { (bytes) throws(HTTPClientError) in
                    try decoder.decode(bytes, into: &piece)
                }
                buffer.removeFirst(consumed)
                if !piece.isEmpty {
                    try piece.withBytes { (bytes) throws(HTTPClientError) in try sink(bytes) }
                    piece.removeAll(keepingCapacity: true)
                }
                if decoder.isComplete { break }
                deadline = Deadline.after(milliseconds: stall)
                guard try fill() else { throw .connection("\(connection.address) closed the connection mid-chunk") }
            }
        case .untilClose:
            reusable = false
            while true {
                if !buffer.isEmpty {
                    try buffer.withBytes { (bytes) throws(HTTPClientError) in try sink(bytes) }
                    buffer.removeAll(keepingCapacity: true)
                }
                deadline = Deadline.after(milliseconds: stall)
                guard try fill() else { break }
            }
        }
        if !buffer.isEmpty { reusable = false }
        return reusable
    }
}
