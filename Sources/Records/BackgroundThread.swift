import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a detached POSIX thread with a name (no Foundation: the server does not load it).
enum BackgroundThread {
    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread named `name` (Linux keeps 15 bytes).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(name: String(name.prefix(15)), body: body)).toOpaque()
        var handle = pthread_t()
        let rc = pthread_create(
            &handle, nil,
            { raw in
                let b = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                b.name.withCString { _ = presignd_set_thread_name($0) }
                b.body()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(handle)
    }
}
