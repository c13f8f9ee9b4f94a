import System
import Uploads

extension Pending {
    /// Keeps the promise and waits for it (tests only; the routes never wait): the value once its
    /// intent is stored, else the reason it is not; `.intentNotStored` when nothing is told within
    /// `seconds`.
    public func kept(seconds: Int = 60) throws(UploadError) -> Value {
        let outcome = Monitor<UploadError??>(nil)
        keep { error in
            outcome.withLock { $0 = .some(error) }
            outcome.broadcast()
        }
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds) * 1_000_000_000
        let result = outcome.withLock { state, waiter -> UploadError?? in
            while state.value == nil, MonotonicClock.nanoseconds() < deadline {
                _ = waiter.wait(untilNanos: deadline)
            }
            return state.value
        }
        guard let result else { throw .intentNotStored }
        if let error = result { throw error }
        return value
    }
}
