import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// One epoll instance and its event buffer, owned (closed and freed in `deinit`). Every `epoll_ctl`
/// result is checked and reported as a `ServerError`, so a descriptor epoll refused is never left
/// silently deaf. Used by one loop's thread only.
final class Epoll {
    /// The epoll descriptor.
    let fd: Int32
    /// The largest number of events one `wait` returns.
    let capacity: Int32
    private let events: UnsafeMutableRawPointer

    /// A new epoll instance (close-on-exec) with room for `capacity` events per wait.
    init(capacity: Int32 = 512) throws(ServerError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw .socket("epoll_create1", errno) }
        self.fd = fd
        self.capacity = capacity
        events = UnsafeMutableRawPointer.allocate(
            byteCount: Int(presignd_epoll_event_size()) * Int(capacity), alignment: 16)
    }

    deinit {
        Sys.close(fd)
        events.deallocate()
    }

    /// Adds `descriptor` with `interest` (EPOLLIN, …) and the `token` its events carry.
    func add(_ descriptor: Int32, interest: UInt32, token: UInt64) throws(ServerError) {
        try control(EPOLL_CTL_ADD, descriptor, interest: interest, token: token, call: "epoll_ctl ADD")
    }

    /// Changes the interest of a registered `descriptor`.
    func modify(_ descriptor: Int32, interest: UInt32, token: UInt64) throws(ServerError) {
        try control(EPOLL_CTL_MOD, descriptor, interest: interest, token: token, call: "epoll_ctl MOD")
    }

    /// Removes `descriptor`.
    func remove(_ descriptor: Int32) throws(ServerError) {
        guard epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, nil) == 0 else { throw .socket("epoll_ctl DEL", errno) }
    }

    /// Waits up to `timeoutMs` (0: poll; -1: forever) and returns how many events are ready (0 on a
    /// timeout or an interrupted wait); read them with `token(at:)` and `flags(at:)`.
    func wait(timeoutMs: Int32) -> Int {
        let n = epoll_wait(fd, events.assumingMemoryBound(to: epoll_event.self), capacity, timeoutMs)
        return n > 0 ? Int(n) : 0
    }

    /// The token of ready event `i`.
    @inline(__always)
    func token(at i: Int) -> UInt64 {
        presignd_epoll_event_data(UnsafePointer(events.assumingMemoryBound(to: epoll_event.self)), Int32(i))
    }

    /// The event flags of ready event `i`.
    @inline(__always)
    func flags(at i: Int) -> UInt32 {
        presignd_epoll_event_events(UnsafePointer(events.assumingMemoryBound(to: epoll_event.self)), Int32(i))
    }

    private func control(_ op: Int32, _ descriptor: Int32, interest: UInt32, token: UInt64, call: String)
        throws(ServerError)
    {
        var ev = epoll_event()
        presignd_epoll_event_set(&ev, interest, token)
        guard epoll_ctl(fd, op, descriptor, &ev) == 0 else { throw .socket(call, errno) }
    }
}
