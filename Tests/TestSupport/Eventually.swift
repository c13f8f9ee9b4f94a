import Foundation

/// Whether `condition` holds within `seconds`, asked every `pollMs` milliseconds; for conditions no
/// event announces (a row written by another thread, a line in a log, a gauge). In an async test
/// the wait is a `Task.sleep`, which frees the thread for other tests.
public func eventually(
    within seconds: Double = 30, pollMs: Int = 5, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        do {
            try await Task.sleep(for: .milliseconds(pollMs))
        } catch {
            break  // cancelled: one last look
        }
    }
    return try await condition()
}

/// `eventually` for code that is not async (a thread of a test double, a synchronous helper): the same
/// polling, sleeping the calling thread between the checks.
public func eventuallyBlocking(within seconds: Double = 30, pollMs: Int = 5, _ condition: () throws -> Bool) rethrows
    -> Bool
{
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(useconds_t(pollMs * 1000))
    }
    return try condition()
}
