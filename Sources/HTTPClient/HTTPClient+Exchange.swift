extension HTTPClient {
    /// Writes the request and reads the response on `connection`; puts the connection back in
    /// the pool when the response allows it.
    func exchange(
        on connection: ClientConnection, _ encoded: [UInt8], request: HTTPRequest, deadline: Deadline,
        streaming sink: BodySink? = nil
    ) throws(ExchangeFailure) -> HTTPResponse {
        do throws(HTTPClientError) {
            try connection.write(encoded, until: deadline)
        } catch {
            throw ExchangeFailure(error: error, beforeResponse: true)
        }
        var reader = ResponseReader(connection: connection, deadline: deadline, options: options)
        let response: HTTPResponse
        let reusable: Bool
        do throws(HTTPClientError) {
            (response, reusable) = try reader.readResponse(toHead: request.expectsNoBody, streaming: sink)
        } catch {
            throw ExchangeFailure(error: error, beforeResponse: reader.received == 0)
        }
        connection.exchanges += 1
        if reusable && options.maxIdleConnections > 0 { pool.checkIn(connection) }
        return response
    }
}

/// Reads one response from a connection: the head, then the body by its framing.
struct ResponseReader {
    /// The connection.
    let connection: ClientConnection
    /// When the whole response must be in (a streamed body: the next bytes of it, `stream`).
    var deadline: Deadline
    /// The limits.
    let options: HTTPClientOptions
    /// Bytes received and not yet parsed.
    var buffer = [UInt8]()
    /// Bytes received in total.
    private(set) var received = 0
    /// Where each read lands before it joins `buffer`.
    private var scratch = [UInt8](repeating: 0, count: 32 << 10)

    /// A reader of `connection` bounded by `deadline` and `options`.
    init(connection: ClientConnection, deadline: Deadline, options: HTTPClientOptions) {
        self.connection = connection
        self.deadline = deadline
        self.options = options
    }

    /// The response (interim 1xx responses skipped), and whether the connection can be reused. With
    /// `sink`, a 2xx body goes to it as it arrives instead (`stream`: the response's body is empty).
    mutating func readResponse(toHead: Bool, streaming sink: BodySink? = nil) throws(HTTPClientError)
        -> (HTTPResponse, Bool)
    {
        var head: ResponseHead
        repeat {
            head = try readHead()
        } while head.status >= 100 && head.status < 200 && head.status != 101
        guard head.status != 101 else { throw .malformedResponse("unexpected 101 Switching Protocols") }
        let framing = try BodyFraming.of(head, toHead: toHead)
        if let sink, (200..<300).contains(head.status) {
            let reusable = try stream(framing, keepsAlive: head.keepsAlive, to: sink)
            return (HTTPResponse(status: head.status, headers: head.headers, body: []), reusable)
        }
        var body = [UInt8]()
        var reusable = head.keepsAlive
        switch framing {
        case .none:
            break
        case .length(let length):
            guard length <= options.maxResponseBytes else { throw tooLarge() }
            body.reserveCapacity(length)
            while buffer.count < length {
                guard try fill() else { throw closedEarly(length - buffer.count) }
            }
            body.append(contentsOf: buffer[..<length])
            buffer.removeFirst(length)
        case .chunked:
            var decoder = ChunkedBodyDecoder()
            while true {
                let consumed = try buffer.withBytes { (bytes) throws(HTTPClientError) in
                    try decoder.decode(bytes, into: &body)
                }
                buffer.removeFirst(consumed)
                guard body.count <= options.maxResponseBytes else { throw tooLarge() }
                if decoder.isComplete { break }
                guard try fill() else { throw .connection("\(connection.address) closed the connection mid-chunk") }
            }
        case .untilClose:
            reusable = false
            while try fill() {
                guard buffer.count <= options.maxResponseBytes else { throw tooLarge() }
            }
            body = buffer
            buffer.removeAll()
        }
        // Bytes nobody asked for would be read as the next response: never reuse such a connection.
        if !buffer.isEmpty { reusable = false }
        return (HTTPResponse(status: head.status, headers: head.headers, body: body), reusable)
    }

    /// Reads until a complete head is buffered, and removes it from the buffer.
    private mutating func readHead() throws(HTTPClientError) -> ResponseHead {
        while true {
            let result = try buffer.withBytes { (bytes) throws(HTTPClientError) in
                try ResponseHeadParser.parse(bytes, maxBytes: options.maxHeadBytes)
            }
            if case .complete(let head, let consumed) = result {
                buffer.removeFirst(consumed)
                return head
            }
            guard try fill() else {
                if received == 0 { throw .connection("\(connection.address) closed the connection without a response") }
                throw .connection("\(connection.address) closed the connection inside the response head")
            }
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    mutating func fill() throws(HTTPClientError) -> Bool {
        let connection = self.connection
        let deadline = self.deadline
        let count = try scratch.withMutableBytes { (bytes) throws(HTTPClientError) in
            try connection.read(into: bytes, until: deadline)
        }
        if count == 0 { return false }
        received += count
        buffer.append(contentsOf: scratch[..<count])
        return true
    }

    /// The error for a body over the limit.
    private func tooLarge() -> HTTPClientError {
        .malformedResponse("response body larger than \(options.maxResponseBytes) bytes")
    }

    /// The error for a body cut short.
    func closedEarly(_ missing: Int) -> HTTPClientError {
        .connection("\(connection.address) closed the connection \(missing) bytes before the end of the body")
    }
}
