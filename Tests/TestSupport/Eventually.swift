import Foundation

/// Whether `condition` holds within `seconds`; for conditions no event announces (a row written by
/// another thread, a line in a log, a gauge). Asked every `pollMs` milliseconds when given; otherwise
/// first after 5 ms, then at doubling intervals up to 100 ms (`Polling`): a condition that holds soon
/// is seen soon, and a long wait does not ask (an HTTP request, a scan of a log) 200 times a second;
/// with every test of the suite waiting at once, that polling had been a large share of its CPU. In an
/// async test the wait is a `Task.sleep`, which frees the thread for other tests.
public func eventually(
    within seconds: Double = 30, pollMs: Int? = nil, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var polling = Polling(fixedMs: pollMs)
    while Date() < deadline {
        if try await condition() { return true }
        do {
            try await Task.sleep(for: .milliseconds(polling.next()))
        } catch {
            break  // cancelled: one last look
        }
    }
    return try await condition()
}

/// The intervals of `eventually`: `fixedMs` each time, or 5 ms doubling to at most 100 ms.
public struct Polling: Sendable {
    private let fixedMs: Int?
    private var currentMs = 5

    /// Fixed intervals of `fixedMs`, or the growing ones when nil.
    public init(fixedMs: Int?) { self.fixedMs = fixedMs }

    /// The next interval to sleep (milliseconds).
    public mutating func next() -> Int {
        if let fixedMs { return fixedMs }
        defer { currentMs = min(currentMs * 2, 100) }
        return currentMs
    }
}

/// `eventually` for code that is not async (a thread of a test double, a synchronous helper): the same
/// polling, sleeping the calling thread between the checks.
public func eventuallyBlocking(within seconds: Double = 30, pollMs: Int? = nil, _ condition: () throws -> Bool)
    rethrows -> Bool
{
    let deadline = Date().addingTimeInterval(seconds)
    var polling = Polling(fixedMs: pollMs)
    while Date() < deadline {
        if try condition() { return true }
        usleep(useconds_t(polling.next() * 1000))
    }
    return try condition()
}
