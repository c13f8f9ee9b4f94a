#ifndef PRESIGND_COPENSSL_SHIM_H
#define PRESIGND_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* Macros Swift cannot import, as functions. */
static inline long presignd_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long presignd_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

/* The low-level SHA-256 API (deprecated in OpenSSL 3.0 but kept, and the fastest way to copy a
 * prepared HMAC pad state: a plain struct copy, no allocation). Wrapped so that callers build
 * without deprecation warnings; only the Crypto module uses these. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int presignd_SHA256_Init(SHA256_CTX *c) { return SHA256_Init(c); }
static inline int presignd_SHA256_Update(SHA256_CTX *c, const void *data, size_t len) {
    return SHA256_Update(c, data, len);
}
static inline int presignd_SHA256_Final(unsigned char *md, SHA256_CTX *c) { return SHA256_Final(md, c); }
#pragma clang diagnostic pop
/* ObjectStore's TLS client: host-name check flags live in x509v3.h as macros. */
#include <openssl/x509v3.h>
static inline unsigned int presignd_X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS(void) {
    return X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;
}
/* Crypto's signature verification (JWT RS256 / ES256): PEM blocks read one by one (their buffers
 * freed with OPENSSL_free, a macro), ECDSA signatures converted between JOSE's r||s and DER. */
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
static inline void presignd_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
/* HTTPServer's TLS termination: SSL_CTX options and modes (macros built on SSL_OP_BIT and
 * SSL_CTX_ctrl), and the retry flags its socket BIO sets. */
static inline uint64_t presignd_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t presignd_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline uint64_t presignd_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline long presignd_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long presignd_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) { return SSL_CTX_set_read_ahead(ctx, yes); }
static inline void presignd_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void presignd_BIO_set_retry_write(BIO *bio) { BIO_set_retry_write(bio); }
static inline void presignd_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }
#endif
