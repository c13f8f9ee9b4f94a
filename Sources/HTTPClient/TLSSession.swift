internal import COpenSSL
import Crypto

/// Owns one client `SSL` session whose records travel through memory BIOs; freed in `deinit`.
///
/// OpenSSL never touches the socket: this type moves ciphertext between the BIOs and a `Socket`
/// itself, so every wait honours the caller's deadline and every send uses `MSG_NOSIGNAL` (a
/// socket BIO would `write(2)` and could raise SIGPIPE in a process that does not ignore it).
/// Used by one thread at a time.
final class TLSSession {
    /// The session (owns both BIOs).
    private let ssl: OpaquePointer
    /// Ciphertext from the server, written here after each `recv`.
    private let readBIO: OpaquePointer
    /// Ciphertext for the server, sent after each OpenSSL call.
    private let writeBIO: OpaquePointer
    /// Where the server is, for messages.
    private let address: ServerAddress
    /// True once the socket reached end of stream.
    private var socketClosed = false
    /// True after a fatal error (no `SSL_shutdown` then).
    private var failed = false
    /// True once the handshake completed.
    private var established = false
    /// Scratch space for ciphertext.
    private var scratch = [UInt8](repeating: 0, count: 16 << 10)

    /// A session that will verify the server's certificate against `address.host` (a DNS name,
    /// also sent as SNI, or an IP address matched against the certificate's IP entries).
    init(context: TLSContext, address: ServerAddress) throws(HTTPClientError) {
        guard let ssl = SSL_new(context.handle) else {
            throw .tls("cannot create a TLS session: \(OpenSSLErrors.drain())")
        }
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tls("cannot create memory BIOs: \(OpenSSLErrors.drain())")
        }
        SSL_set_bio(ssl, readBIO, writeBIO)
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        self.address = address
        SSL_set_connect_state(ssl)
        if address.isIPLiteral {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address.bareHost) == 1 else {
                throw .tls("cannot verify against IP address \(address.host): \(OpenSSLErrors.drain())")
            }
        } else {
            SSL_set_hostflags(ssl, presignd_X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS())
            guard SSL_set1_host(ssl, address.host) == 1, presignd_SSL_set_tlsext_host_name(ssl, address.host) == 1
            else {
                throw .tls("cannot verify against host name \(address.host): \(OpenSSLErrors.drain())")
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// Runs the handshake over `socket`, verifying the certificate chain and the host.
    func handshake(over socket: Socket, until deadline: Deadline) throws(HTTPClientError) {
        _ = try drive(socket, until: deadline) { SSL_connect($0) }
        established = true
    }

    /// Encrypts and sends all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer, over socket: Socket, until deadline: Deadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(min(bytes.count - offset, 1 << 30))
            let base = bytes.baseAddress! + offset
            offset += try drive(socket, until: deadline) { SSL_write($0, base, chunk) }
        }
    }

    /// Reads up to `buffer.count` plaintext bytes; 0 means the server closed the session cleanly.
    func read(into buffer: UnsafeMutableRawBufferPointer, over socket: Socket, until deadline: Deadline)
        throws(HTTPClientError)
        -> Int
    {
        let base = buffer.baseAddress!
        let count = Int32(min(buffer.count, 1 << 30))
        return try drive(socket, until: deadline) { SSL_read($0, base, count) }
    }

    /// Sends close_notify without waiting for the server's (best effort, for a polite close).
    func shutdown(over socket: Socket) {
        guard established, !failed, !socketClosed else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        try? flush(to: socket, until: Deadline.after(milliseconds: 50))
        ERR_clear_error()
    }

    /// Calls `operation` until it succeeds, feeding it ciphertext from `socket` when it wants
    /// more and sending what it produced; returns its positive result, or 0 on a clean close.
    private func drive(_ socket: Socket, until deadline: Deadline, _ operation: (OpaquePointer) -> Int32)
        throws(HTTPClientError) -> Int
    {
        while true {
            ERR_clear_error()
            let result = operation(ssl)
            let code = result > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, result)
            switch code {
            case SSL_ERROR_NONE:
                try flush(to: socket, until: deadline)
                return Int(result)
            case SSL_ERROR_WANT_READ:
                try flush(to: socket, until: deadline)
                try fill(from: socket, until: deadline)
            case SSL_ERROR_WANT_WRITE:
                try flush(to: socket, until: deadline)
            case SSL_ERROR_ZERO_RETURN:
                return 0
            default:
                failed = true
                let detail = OpenSSLErrors.drain()
                try? flush(to: socket, until: Deadline.after(milliseconds: 50))  // an alert, if any
                throw describeFailure(code: code, detail: detail)
            }
        }
    }

    /// The error for a failed OpenSSL call: a broken connection, a certificate problem, or TLS.
    private func describeFailure(code: Int32, detail: String) -> HTTPClientError {
        if !established {
            let verification = SSL_get_verify_result(ssl)
            if verification != Int(X509_V_OK) {
                let reason = String(cString: X509_verify_cert_error_string(verification))
                return .tls("certificate of \(address.host) rejected: \(reason)")
            }
        }
        if socketClosed {
            let phase = established ? "before the end of the response" : "during the TLS handshake"
            return .connection("\(address.host):\(address.port) closed the connection \(phase)")
        }
        if code == SSL_ERROR_SYSCALL { return .connection("TLS I/O with \(address.host):\(address.port) failed") }
        return .tls("TLS with \(address.host):\(address.port) failed: \(detail)")
    }

    /// Sends every ciphertext byte OpenSSL has queued.
    private func flush(to socket: Socket, until deadline: Deadline) throws(HTTPClientError) {
        while BIO_ctrl_pending(writeBIO) > 0 {
            let count = scratch.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            try scratch.withBytes { (bytes) throws(HTTPClientError) in
                try socket.send(UnsafeRawBufferPointer(rebasing: bytes[..<Int(count)]), until: deadline)
            }
        }
    }

    /// Receives ciphertext into the read BIO; at end of stream, makes the BIO report EOF.
    private func fill(from socket: Socket, until deadline: Deadline) throws(HTTPClientError) {
        guard !socketClosed else {
            throw .connection("\(address.host):\(address.port) closed the connection")
        }
        let count = try scratch.withMutableBytes { (buffer) throws(HTTPClientError) in
            try socket.receive(into: buffer, until: deadline)
        }
        if count == 0 {
            socketClosed = true
            _ = BIO_ctrl(readBIO, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, nil)
            return
        }
        let written = scratch.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32(count)) }
        guard written == Int32(count) else { throw .tls("cannot buffer TLS records: \(OpenSSLErrors.drain())") }
    }
}
