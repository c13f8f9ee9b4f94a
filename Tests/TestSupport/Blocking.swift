import Foundation

/// Runs `work`, which blocks (a socket, a child process, a join), on a thread of its own and awaits its
/// result, so that an async test never holds one of the cooperative pool's few threads while it waits.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
