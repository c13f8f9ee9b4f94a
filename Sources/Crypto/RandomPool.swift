import Synchronization

/// Random UUIDs for the hot path: bytes are drawn from OpenSSL's generator 4 KiB at a time and handed
/// out 16 at a time, so a UUID costs a short lock and a copy instead of a full `RAND_bytes` call.
///
/// The pool is refilled from `SecureRandom` (RAND_bytes); a byte is never handed out twice.
public final class RandomPool: Sendable {
    private struct State {
        /// Random bytes, those before `offset` already handed out (and zeroed).
        var buffer = [UInt8](repeating: 0, count: RandomPool.chunk)
        var offset = RandomPool.chunk
    }

    static let chunk = 4096
    private let state = Mutex(State())

    /// An empty pool; the first draw fills it.
    public init() {}

    /// A new random version-4 UUID, lower case.
    public func uuid() throws(CryptoError) -> String {
        // Sixteen bytes on the stack: copied out under the lock, formatted after it.
        var bytes: (UInt64, UInt64) = (0, 0)
        try state.withLock { (s) throws(CryptoError) in
            if s.offset + 16 > s.buffer.count {
                // Refilled in place: a new 4 KiB array at each refill was one of the large allocations that
                // set off glibc's `malloc_consolidate` on the event loop.
                let failure = s.buffer.withUnsafeMutableBytes { pool -> CryptoError? in
                    do throws(CryptoError) {
                        try SecureRandom.fill(pool)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
                s.offset = 0
            }
            let offset = s.offset
            s.buffer.withUnsafeMutableBytes { pool in
                withUnsafeMutableBytes(of: &bytes) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: pool[offset..<offset + 16]))
                }
                // Overwrite what was handed out, so the pool never holds bytes already given away.
                pool[offset..<offset + 16].initializeMemory(as: UInt8.self, repeating: 0)
            }
            s.offset += 16
        }
        return withUnsafeBytes(of: &bytes) { UUIDv4.format(randomBytes: $0) }
    }
}
