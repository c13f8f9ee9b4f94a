internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A BIO that moves TLS records through the server's own `Sys.read` and `Sys.write` on a non-blocking
/// socket, so TLS and plain connections make the same syscalls through the same wrappers.
///
/// Why not `SSL_set_fd`: OpenSSL's socket BIO writes with `write(2)`, which raises SIGPIPE when the peer
/// has gone, in any process that does not ignore it (the server runs inside tests too); `Sys.write`
/// sends with `MSG_NOSIGNAL`. Why not memory BIOs: they cost a copy of every record each way and a
/// buffer per connection, where this one reads straight into OpenSSL's record buffer.
///
/// The BIO holds only the descriptor (in its data pointer); it never closes it.
enum SocketBIO {
    /// The method, made once per process and never freed.
    nonisolated(unsafe) private static let method: OpaquePointer? = makeMethod()

    /// A new BIO on `fd`, or nil when OpenSSL cannot allocate one.
    static func make(fd: Int32) -> OpaquePointer? {
        guard let method, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, UnsafeMutableRawPointer(bitPattern: Int(fd)))
        BIO_set_init(bio, 1)
        return bio
    }

    /// Builds the BIO method: read, write and the few controls OpenSSL asks of a socket.
    private static func makeMethod() -> OpaquePointer? {
        guard let m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "presignd socket") else { return nil }
        BIO_meth_set_read_ex(m) { bio, buffer, count, done in
            guard let bio, let buffer, let done else { return 0 }
            presignd_BIO_clear_retry_flags(bio)
            switch Sys.read(SocketBIO.descriptor(bio), buffer, count) {
            case .done(let n):
                done.pointee = n
                return 1
            case .eof:
                // Read by the record layer through BIO_CTRL_EOF: an end of stream, not an error.
                BIO_set_flags(bio, BIO_FLAGS_IN_EOF)
                done.pointee = 0
                return 0
            case .wouldBlock:
                presignd_BIO_set_retry_read(bio)
                done.pointee = 0
                return 0
            case .failed(let e):
                errno = e
                done.pointee = 0
                return 0
            }
        }
        BIO_meth_set_write_ex(m) { bio, buffer, count, done in
            guard let bio, let buffer, let done else { return 0 }
            presignd_BIO_clear_retry_flags(bio)
            switch Sys.write(SocketBIO.descriptor(bio), buffer, count) {
            case .done(let n):
                done.pointee = n
                return 1
            case .wouldBlock:
                presignd_BIO_set_retry_write(bio)
                done.pointee = 0
                return 0
            case .eof:
                done.pointee = 0
                return 0
            case .failed(let e):
                errno = e
                done.pointee = 0
                return 0
            }
        }
        BIO_meth_set_ctrl(m) { bio, command, _, _ in
            switch command {
            case BIO_CTRL_FLUSH: return 1  // nothing is buffered here
            case BIO_CTRL_EOF: return bio.map { BIO_test_flags($0, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0 } ?? 0
            default: return 0
            }
        }
        return m
    }

    /// The descriptor stored in the BIO's data pointer.
    private static func descriptor(_ bio: OpaquePointer) -> Int32 {
        Int32(truncatingIfNeeded: Int(bitPattern: BIO_get_data(bio)))
    }
}
