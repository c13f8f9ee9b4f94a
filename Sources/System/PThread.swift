import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A named POSIX thread: joinable (`init`, then `join`) or detached (`detach`). No Foundation: the
/// server does not load it.
public final class PThread: @unchecked Sendable {
    /// The thread's handle.
    private var handle = pthread_t()

    /// What the new thread runs, and the name it gives itself.
    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a joinable thread named `name` (Linux keeps its first 15 bytes) running `body`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        handle = Self.create(name: name, body)
    }

    /// Waits for the thread to end; call once.
    public func join() { pthread_join(handle, nil) }

    /// Starts a detached thread named `name` (Linux keeps its first 15 bytes) running `body`.
    public static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        pthread_detach(create(name: name, body))
    }

    /// `pthread_create` of a thread that names itself, then runs `body`.
    private static func create(name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t {
        let start = Unmanaged.passRetained(Start(name: String(name.prefix(15)), body: body)).toOpaque()
        var handle = pthread_t()
        let rc = pthread_create(
            &handle, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                start.name.withCString { _ = presignd_set_thread_name($0) }
                start.body()
                return nil
            }, start)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        return handle
    }

    /// Gives the calling thread the nice value `nice` (0 normal, up to 19 lowest): when the CPUs are
    /// busy, the scheduler gives it less of their time than the threads at 0. False when the kernel
    /// refused (lowering a nice value needs a privilege; raising it does not).
    @discardableResult
    public static func setNice(_ nice: Int32) -> Bool {
        presignd_set_thread_nice(nice) == 0
    }

    /// The calling thread's nice value (`getpriority(2)` on its own thread id).
    public static func nice() -> Int32 {
        presignd_thread_nice()
    }

    /// Blocks the calling thread for `milliseconds` (`nanosleep`, resumed after signals).
    public static func sleep(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
