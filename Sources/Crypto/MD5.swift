internal import COpenSSL

/// MD5 (RFC 1321), one-shot, for the checksums S3 still speaks: `Content-MD5` on bucket
/// configuration requests and the ETag of a multipart object. Never for security.
public enum MD5 {
    /// The 16-byte MD5 digest of `bytes` (EVP, libcrypto's default provider).
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_md5(), nil)
            }
        }
        precondition(status == 1 && length == 16, "libcrypto's MD5 failed")
        return digest
    }
}
