import System

#if canImport(Glibc)
    import Glibc
#endif

/// One address to connect to: a socket address as `getaddrinfo` gave it.
struct ResolvedAddress: Sendable, Equatable {
    /// `AF_INET` or `AF_INET6`.
    let family: Int32
    /// The `sockaddr` bytes.
    let bytes: [UInt8]
}

/// Resolves storage host names within the caller's deadline, with a short cache.
///
/// `getaddrinfo` cannot be given a timeout: a resolver that does not answer holds the calling thread
/// for the system's whole retry schedule (5 s per try by default), far beyond `s3.requestTimeoutMs`.
/// Here each lookup runs on a thread of its own while the caller waits only until its deadline (then
/// fails with `.timeout`; the lookup finishes in the background). Concurrent callers for one host share
/// one lookup, so a dead resolver costs one blocked thread per host, not one per request. Successful
/// answers are reused for `cacheMilliseconds`; failures are not kept. IP literals never come here.
final class HostResolver: @unchecked Sendable {
    /// A lookup: the addresses of `host` for `port`, or why not (blocking).
    typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[ResolvedAddress], HTTPClientError>

    /// One lookup in progress or done, shared by everyone who waits for it.
    private final class Attempt: @unchecked Sendable {
        /// Set once, under the resolver's mutex.
        var result: Result<[ResolvedAddress], HTTPClientError>?
    }

    /// The process-wide resolver the S3 client uses.
    static let shared = HostResolver(lookup: HostResolver.systemLookup)

    /// How long a successful answer is reused.
    let cacheMilliseconds: Int
    /// The blocking lookup.
    private let lookup: Lookup
    /// Starts a detached thread (tests may run the lookup elsewhere).
    private let startThread: (@escaping @Sendable () -> Void) -> Void
    /// Guards the fields below; `condition` is broadcast when an attempt finishes.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Successful answers by "host port", with the monotonic time they expire.
    private var cache: [String: (addresses: [ResolvedAddress], expiresAt: UInt64)] = [:]
    /// Lookups in progress by "host port".
    private var inFlight: [String: Attempt] = [:]
    /// Callers waiting for a lookup now (tests wait on it instead of guessing when callers arrived).
    private var waiting = 0

    /// A resolver using `lookup`, keeping answers `cacheMilliseconds`.
    init(
        cacheMilliseconds: Int = 30_000, lookup: @escaping Lookup,
        startThread: @escaping (@escaping @Sendable () -> Void) -> Void = HostResolver.detachedThread
    ) {
        self.cacheMilliseconds = cacheMilliseconds
        self.lookup = lookup
        self.startThread = startThread
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The addresses of `host` for `port`: from the cache, or from a lookup that must finish by `deadline`.
    func resolve(host: String, port: Int, deadline: Deadline) throws(HTTPClientError) -> [ResolvedAddress] {
        let key = "\(host) \(port)"
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let cached = cache[key], Deadline.nowNanoseconds() < cached.expiresAt { return cached.addresses }
        let attempt: Attempt
        if let running = inFlight[key] {
            attempt = running
        } else {
            attempt = Attempt()
            inFlight[key] = attempt
            let lookup = self.lookup
            startThread { [self] in
                let result = lookup(host, port)
                pthread_mutex_lock(mutex)
                attempt.result = result
                inFlight[key] = nil
                if case .success(let addresses) = result {
                    let ttl = UInt64(max(0, cacheMilliseconds)) &* 1_000_000
                    cache[key] = (addresses, Deadline.nowNanoseconds() &+ ttl)
                }
                pthread_cond_broadcast(condition)
                pthread_mutex_unlock(mutex)
            }
        }
        var until = timespec(
            tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        waiting += 1
        defer { waiting -= 1 }
        while attempt.result == nil {
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT && attempt.result == nil {
                throw .timeout("resolving \(host) timed out (the lookup goes on in the background)")
            }
        }
        switch attempt.result! {
        case .success(let addresses): return addresses
        case .failure(let error): throw error
        }
    }

    /// How many callers are waiting for a lookup to finish.
    var waitingCallers: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiting
    }

    /// `getaddrinfo` for `host` (a name, or with `numeric` an IP literal), as owned addresses.
    static func systemLookup(host: String, port: Int, numeric: Bool) -> Result<[ResolvedAddress], HTTPClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = numeric ? AI_NUMERICHOST | AI_NUMERICSERV : AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(.connection("cannot resolve \(host): \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
            addresses.append(ResolvedAddress(family: entry.pointee.ai_family, bytes: Array(bytes)))
        }
        guard !addresses.isEmpty else { return .failure(.connection("cannot resolve \(host): no address")) }
        return .success(addresses)
    }

    /// `systemLookup` for a name.
    @Sendable static func systemLookup(host: String, port: Int) -> Result<[ResolvedAddress], HTTPClientError> {
        systemLookup(host: host, port: port, numeric: false)
    }

    /// Runs `body` on a new detached POSIX thread (no Foundation in the server).
    static func detachedThread(_ body: @escaping @Sendable () -> Void) {
        PThread.detach(name: "presignd-dns", body)
    }
}
