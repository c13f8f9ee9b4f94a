internal import COpenSSL

/// One server-side TLS session on a connection's non-blocking socket, driven by its event loop; owns
/// its `SSL` (and, through it, the `SocketBIO`), freed in `deinit`. Used by the loop's thread only.
///
/// Every operation first empties the thread's OpenSSL error queue: `SSL_get_error` reads that queue,
/// and work done inline on the loop (hashing, signatures) may have left entries in it.
final class TLSServerSession {
    /// The outcome of one TLS operation.
    enum Outcome: Equatable {
        /// Done: that many bytes were read or written (0 for a completed handshake).
        case done(Int)
        /// Waits until the socket is readable.
        case wantRead
        /// Waits until the socket is writable.
        case wantWrite
        /// The peer ended the stream (close_notify, or a TCP end of stream without one).
        case closed
        /// A fatal error (a bad record, a refused handshake, a reset): the session is unusable.
        case failed
    }

    /// The session.
    private let ssl: OpaquePointer
    /// True once the handshake completed.
    private(set) var established = false
    /// True after a fatal error (then no close_notify may be sent).
    private(set) var failed = false
    /// True once close_notify was attempted.
    private var closeNotifySent = false
    /// An `SSL_read` stopped because it must write first; the loop waits for EPOLLOUT, then reads again.
    var readWantsWrite = false
    /// An `SSL_write` stopped because it must read first; the loop waits for EPOLLIN, then writes again.
    var writeWantsRead = false

    /// A server session on `fd` from `context`; nil when OpenSSL cannot allocate one.
    init?(context: TLSServerContext, fd: Int32) {
        guard let ssl = SSL_new(context.handle) else {
            ERR_clear_error()
            return nil
        }
        guard let bio = SocketBIO.make(fd: fd) else {
            SSL_free(ssl)
            ERR_clear_error()
            return nil
        }
        SSL_set_bio(ssl, bio, bio)  // one BIO both ways: the session owns it
        SSL_set_accept_state(ssl)
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

    /// Advances the handshake as far as the socket allows.
    func handshake() -> Outcome {
        ERR_clear_error()
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            established = true
            return .done(0)
        }
        return outcome(of: r)
    }

    /// Decrypts up to `count` bytes into `buffer` (one record at most).
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Outcome {
        ERR_clear_error()
        let r = SSL_read(ssl, buffer, Int32(clamping: count))
        return r > 0 ? .done(Int(r)) : outcome(of: r)
    }

    /// Encrypts and sends from `buffer`; may write only part of it (partial-write mode). After
    /// `.wantWrite` or `.wantRead` the caller retries with at least the same bytes, possibly moved.
    func write(_ buffer: UnsafeRawPointer, count: Int) -> Outcome {
        ERR_clear_error()
        let r = SSL_write(ssl, buffer, Int32(clamping: count))
        return r > 0 ? .done(Int(r)) : outcome(of: r)
    }

    /// True when OpenSSL holds input the socket will not signal again: decrypted bytes not yet read, or
    /// records read ahead but not yet decrypted.
    var hasBufferedInput: Bool { SSL_has_pending(ssl) == 1 }

    /// Sends close_notify once, without waiting for the peer's (best effort: never blocks, never after a
    /// fatal error or before the handshake completed).
    func sendCloseNotify() {
        guard established, !failed, !closeNotifySent else { return }
        closeNotifySent = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Classifies a failed call.
    private func outcome(of result: Int32) -> Outcome {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            failed = true
            ERR_clear_error()
            return .failed
        }
    }
}
