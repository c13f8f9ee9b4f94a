internal import COpenSSL

/// Owns an `SSL_CTX` for clients: TLS 1.2 or later, peer verification on, trusted CAs from a
/// PEM file or the system store. Freed in `deinit`.
///
/// Sendable: OpenSSL allows one configured `SSL_CTX` to create sessions on many threads; nothing
/// changes it after `init`.
final class TLSContext: @unchecked Sendable {
    /// The context.
    let handle: OpaquePointer

    /// A client context trusting `caFile` (PEM), or the system store when nil.
    init(caFile: String?) throws(ObjectStoreError) {
        guard let handle = SSL_CTX_new(TLS_client_method()) else {
            throw .tls("cannot create a TLS context: \(OpenSSLErrors.drain())")
        }
        self.handle = handle
        guard presignd_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION) == 1 else {
            throw .tls("cannot require TLS 1.2: \(OpenSSLErrors.drain())")
        }
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(handle, caFile, nil) == 1 else {
                throw .tls("cannot load the CA file \(caFile): \(OpenSSLErrors.drain())")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(handle) == 1 else {
                throw .tls("cannot load the system CA store: \(OpenSSLErrors.drain())")
            }
        }
    }

    deinit { SSL_CTX_free(handle) }
}

/// Reads OpenSSL's thread-local error queue.
enum OpenSSLErrors {
    /// Every queued error as text, oldest first, joined by `; `; the queue is left empty.
    static func drain() -> String {
        var messages = [String]()
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }
}
