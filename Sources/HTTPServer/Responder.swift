import Synchronization

/// The answer to one request, given later from any thread: what a `.deferred` handler gets instead of
/// a worker. The handler hands it on (to the intent writer's completion, say) and returns at once; the
/// event loop goes on serving other connections while the request's connection keeps its input paused,
/// so pipelined answers stay in order.
///
/// Each responder answers at most once: `respond` returns true for the answer that counts and false
/// for any later one, which is dropped. A responder whose connection closed meanwhile answers nothing
/// (the loop finds the connection gone). One let go without an answer gives the request a 500
/// (`ServerError.responderDropped`), so a request is never left hanging by a handler's bug.
public final class Responder: Sendable {
    /// Where the answer goes.
    private let deliver: @Sendable (Response) -> Void
    /// Whether the answer was given (the first `respond`, or the drop in `deinit`).
    private let answered = Atomic<Bool>(false)
    /// The answer given when the responder is let go unanswered; nil: none (a responder wrapping
    /// another lets that one go with it, and it answers for itself).
    private let dropped: (@Sendable () -> Response)?

    /// A responder whose answer goes to `deliver` (once); let go unanswered, it delivers `dropped()`
    /// when there is one. The server makes the ones it hands to handlers; this one is for composing
    /// (`HandlerResult.map`) and for tests.
    public init(
        dropped: (@Sendable () -> Response)? = nil, _ deliver: @escaping @Sendable (Response) -> Void
    ) {
        self.deliver = deliver
        self.dropped = dropped
    }

    /// Answers the request with `response` (any thread; never blocks beyond a short lock); false when
    /// it was already answered and this one is dropped.
    @discardableResult
    public func respond(_ response: Response) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        deliver(response)
        return true
    }

    /// Whether an answer was given.
    public var isAnswered: Bool { answered.load(ordering: .acquiring) }

    deinit {
        if let dropped, !answered.load(ordering: .acquiring) { deliver(dropped()) }
    }
}
