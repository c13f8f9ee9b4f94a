internal import COpenSSL
import Crypto

/// Owns a server `SSL_CTX` built from a certificate chain file and a private key file; freed in `deinit`.
///
/// Settings: TLS 1.2 or later (1.3 when asked), no renegotiation, server cipher preference, ALPN
/// "http/1.1", partial writes with a movable buffer (the event loop retries from its outbox), read-ahead
/// (one `read` per batch of records) and buffers released while a connection is idle. Session tickets
/// keep OpenSSL's defaults; a reload makes new ticket keys, so older tickets fall back to a full handshake.
///
/// Sendable: after `init` nothing changes the context; OpenSSL lets many threads call `SSL_new` on one
/// configured `SSL_CTX`, and each `SSL` holds its own reference (so a replaced context lives on while
/// connections made from it remain).
final class TLSServerContext: @unchecked Sendable {
    /// The `SSL_CTX`.
    let handle: OpaquePointer

    /// Builds a context from `options`; the error names the file or step and OpenSSL's reason.
    init(options: TLSOptions) throws(ServerError) {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw .tls("context", reason: TLSServerContext.drainErrors())
        }
        do {
            try TLSServerContext.configure(ctx, options)
        } catch {
            SSL_CTX_free(ctx)
            ERR_clear_error()
            throw error
        }
        handle = ctx
    }

    deinit { SSL_CTX_free(handle) }

    /// Applies the protocol settings, then loads and checks the certificate chain and the key.
    private static func configure(_ ctx: OpaquePointer, _ options: TLSOptions) throws(ServerError) {
        let version = options.minVersion == .tls13 ? TLS1_3_VERSION : TLS1_2_VERSION
        guard presignd_SSL_CTX_set_min_proto_version(ctx, version) == 1 else {
            throw .tls("minimum version \(options.minVersion.rawValue)", reason: drainErrors())
        }
        SSL_CTX_set_options(
            ctx,
            presignd_SSL_OP_NO_RENEGOTIATION() | presignd_SSL_OP_IGNORE_UNEXPECTED_EOF()
                | presignd_SSL_OP_CIPHER_SERVER_PREFERENCE())
        _ = presignd_SSL_CTX_set_mode(
            ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS))
        _ = presignd_SSL_CTX_set_read_ahead(ctx, 1)
        // An encrypted key must fail to load, not prompt for a passphrase on the terminal.
        SSL_CTX_set_default_passwd_cb(ctx) { _, _, _, _ in 0 }
        SSL_CTX_set_alpn_select_cb(ctx, selectHTTP11, nil)
        guard SSL_CTX_use_certificate_chain_file(ctx, options.certificateFile) == 1 else {
            throw .tls("certificate file \(options.certificateFile)", reason: drainErrors())
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, options.privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw .tls("private key file \(options.privateKeyFile)", reason: drainErrors())
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw .tls(
                "private key file \(options.privateKeyFile) does not match certificate file \(options.certificateFile)",
                reason: drainErrors())
        }
    }

    /// Empties this thread's OpenSSL error queue into one line (Crypto's condensed form: "library:
    /// reason" for each distinct entry, without the generic wrappers when a precise entry exists).
    static func drainErrors() -> String { OpenSSLErrors.drainCondensed(ifNone: "unknown error") }
}

/// ALPN (RFC 7301): picks "http/1.1" when the client offers it; otherwise no protocol is acknowledged
/// and the connection goes on as HTTP/1.1 (the only protocol this server speaks).
private func selectHTTP11(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
    let wanted: [UInt8] = Array("http/1.1".utf8)
    var i = 0
    let n = Int(offeredLength)
    while i < n {
        let length = Int(offered[i])
        let start = i + 1
        guard start + length <= n else { break }
        if length == wanted.count {
            var same = true
            for k in 0..<length where offered[start + k] != wanted[k] {
                same = false
                break
            }
            if same {
                out.pointee = offered + start
                outLength.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
        }
        i = start + length
    }
    return SSL_TLSEXT_ERR_NOACK
}
