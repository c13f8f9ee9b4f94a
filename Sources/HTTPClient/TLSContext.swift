internal import COpenSSL
import Crypto

/// Owns an `SSL_CTX` for clients: TLS 1.2 or later, peer verification on, trusted CAs from a
/// PEM file or the system store. Freed in `deinit`.
///
/// Sendable: OpenSSL allows one configured `SSL_CTX` to create sessions on many threads; nothing
/// changes it after `init`.
final class TLSContext: @unchecked Sendable {
    /// The context.
    let handle: OpaquePointer

    /// A client context trusting `caFile` (PEM), or the system store when nil.
    init(caFile: String?) throws(HTTPClientError) {
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
