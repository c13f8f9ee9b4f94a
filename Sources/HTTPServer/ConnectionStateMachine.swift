/// The request cycle of one connection as a pure value: the event loop feeds it events (bytes read,
/// a head parsed, a body complete, a handler finished, a write done, a timer with the clock's now, the
/// peer's end of stream, a drain) and performs the `Action` it returns. No sockets, no clock, no
/// allocation: every event is a mutating call that returns a small enum, so it is tested in microseconds
/// (`ConnectionStateMachineTests`) the way Hummingbird's and SwiftNIO's HTTP state machines are.
///
/// Invariant: a request is in flight from `headParsed` until `responding` (or `closed`); the change of
/// the in-flight count is kept here and handed to the shell by `takeInFlightChange()`, the one place
/// the loop touches the gauge.
struct ConnectionStateMachine {
    /// Where the connection is in its request cycle.
    enum State: Equatable {
        /// Waiting for (the rest of) a request head.
        case awaitingHead
        /// The head is read; the body is arriving.
        case readingBody
        /// The handler's answer is awaited (a worker's, or a `Responder`'s from another thread); input is
        /// paused until it is written.
        case waitingForHandler
        /// The write side is shut; remaining input is read and discarded until EOF or a deadline.
        case lingering
        /// Closed; kept only until the loop drops its reference.
        case closed
    }

    /// What the shell does next.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// Read the socket (it is readable and input is wanted).
        case read
        /// Hand the bytes just read to the parser.
        case process
        /// Parse the next request head from the input.
        case parse
        /// Stop parsing for now (no more input, a pause, or the connection closes after its response).
        case stop
        /// The per-read bound is reached: continue on the next loop iteration (the ready list).
        case yield
        /// The body will arrive until this deadline (monotonic milliseconds); read it.
        case readBody(deadlineMs: Int64)
        /// The request is complete: run its handler.
        case dispatch
        /// Input stays off until the handler's response is written.
        case pauseInput
        /// Listen for input again.
        case resumeInput
        /// The socket took only part of the output: wait until it is writable.
        case waitForWritable
        /// Shut the write side and discard input until this deadline, so the client reads the response.
        case linger(deadlineMs: Int64)
        /// Answer 408 (the body deadline passed) and close after it.
        case respondTimeout
        /// Close the connection now.
        case close
    }

    /// The deadlines and bounds the machine enforces (from `ServerOptions`).
    struct Rules: Equatable {
        /// Deadline for a whole header section, from its first byte (or from accept).
        var headerTimeoutMs: Int64
        /// Deadline for a body once its head is read, and for a stalled response write.
        var bodyTimeoutMs: Int64
        /// How long an idle keep-alive connection is kept.
        var idleTimeoutMs: Int64
        /// Requests answered per read before other connections get their turn.
        var maxPipelinedPerRead: Int
        /// How long a closing connection lingers, reading and discarding.
        var lingerMs: Int64 = 2_000
        /// The most bytes discarded while lingering before closing at once.
        var maxLingerBytes: Int = 1 << 20

        /// The rules of `options`.
        init(options: ServerOptions) {
            self.init(
                headerTimeoutMs: Int64(options.headerTimeoutMs), bodyTimeoutMs: Int64(options.bodyTimeoutMs),
                idleTimeoutMs: Int64(options.idleTimeoutMs), maxPipelinedPerRead: options.maxPipelinedPerRead)
        }

        /// Rules with explicit values (tests).
        init(headerTimeoutMs: Int64, bodyTimeoutMs: Int64, idleTimeoutMs: Int64, maxPipelinedPerRead: Int) {
            self.headerTimeoutMs = headerTimeoutMs
            self.bodyTimeoutMs = bodyTimeoutMs
            self.idleTimeoutMs = idleTimeoutMs
            self.maxPipelinedPerRead = maxPipelinedPerRead
        }
    }

    // The fields below are set only by the machine's events (its extensions); the shell reads them.

    /// The rules in force.
    let rules: Rules
    /// The current state.
    var state: State = .awaitingHead
    /// When the head being awaited started to count against the header deadline; nil while idle.
    var headClockStartMs: Int64?
    /// Last time bytes moved either way.
    var lastActiveMs: Int64
    /// The body's or the lingering's deadline.
    var deadlineMs: Int64 = 0
    /// Close once the output is written.
    var closeAfterWrite = false
    /// The peer shut its write side.
    var peerClosed = false
    /// Requests answered on this connection.
    var served = 0
    /// Bytes discarded while lingering.
    var discarded = 0
    /// Whether a request is in flight (its head parsed, its response not yet queued).
    var requestInFlight = false
    /// Heads parsed since the last `processingStarted()`.
    var parsedInBatch = 0
    /// Change of the in-flight count not yet handed to the shell.
    var inFlightChange = 0

    /// A connection accepted at `nowMs`: the header deadline counts from now.
    init(nowMs: Int64, rules: Rules) {
        self.rules = rules
        lastActiveMs = nowMs
        headClockStartMs = nowMs
    }
}
