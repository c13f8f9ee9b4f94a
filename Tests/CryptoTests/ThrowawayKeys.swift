import Foundation
import TestSupport

/// Keys made at test time by the `openssl` command-line tool, read into memory, their files deleted.
///
/// Made once per test process (the `shared` value); each test reads what it needs from it.
struct ThrowawayKeys: Sendable {
    /// PKCS #8 PEM of an RSA-2048 private key.
    let rsaPrivatePEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of that key.
    let rsaPublicPEM: [UInt8]
    /// PKCS #1 `RSA PUBLIC KEY` PEM of that key.
    let rsaPKCS1PublicPEM: [UInt8]
    /// A self-signed X.509 certificate PEM for that key.
    let rsaCertificatePEM: [UInt8]
    /// PKCS #8 PEM of an EC P-256 private key.
    let ecPrivatePEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of that key.
    let ecPublicPEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of an RSA-1024 key (too short).
    let rsa1024PublicPEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of an EC P-384 key (wrong curve).
    let p384PublicPEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of an Ed25519 key (unsupported type).
    let ed25519PublicPEM: [UInt8]
    /// PKCS #8 PEM of an RSA-2048 private key encrypted with a passphrase.
    let encryptedPrivatePEM: [UInt8]

    /// The keys of this test process, or the error that prevented making them.
    static let shared: Result<ThrowawayKeys, Error> = Result { try ThrowawayKeys() }

    /// Runs `openssl` in a fresh temporary directory and reads its output files.
    private init() throws {
        let tools = try ToolDirectory(prefix: "presignd-crypto-keys")
        defer { tools.remove() }
        try tools.openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem")
        try tools.openssl("pkey", "-in", "rsa.pem", "-pubout", "-out", "rsa.pub.pem")
        try tools.openssl("rsa", "-in", "rsa.pem", "-RSAPublicKey_out", "-out", "rsa.pkcs1.pem")
        try tools.openssl(
            "req", "-new", "-x509", "-key", "rsa.pem", "-subj", "/CN=presignd-test", "-days", "1", "-out", "rsa.crt")
        try tools.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem")
        try tools.openssl("pkey", "-in", "ec.pem", "-pubout", "-out", "ec.pub.pem")
        try tools.openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "rsa1024.pem")
        try tools.openssl("pkey", "-in", "rsa1024.pem", "-pubout", "-out", "rsa1024.pub.pem")
        try tools.openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "p384.pem")
        try tools.openssl("pkey", "-in", "p384.pem", "-pubout", "-out", "p384.pub.pem")
        try tools.openssl("genpkey", "-algorithm", "ED25519", "-out", "ed25519.pem")
        try tools.openssl("pkey", "-in", "ed25519.pem", "-pubout", "-out", "ed25519.pub.pem")
        try tools.openssl("pkey", "-in", "rsa.pem", "-aes256", "-passout", "pass:throwaway", "-out", "rsa.enc.pem")
        rsaPrivatePEM = try tools.read("rsa.pem")
        rsaPublicPEM = try tools.read("rsa.pub.pem")
        rsaPKCS1PublicPEM = try tools.read("rsa.pkcs1.pem")
        rsaCertificatePEM = try tools.read("rsa.crt")
        ecPrivatePEM = try tools.read("ec.pem")
        ecPublicPEM = try tools.read("ec.pub.pem")
        rsa1024PublicPEM = try tools.read("rsa1024.pub.pem")
        p384PublicPEM = try tools.read("p384.pub.pem")
        ed25519PublicPEM = try tools.read("ed25519.pub.pem")
        encryptedPrivatePEM = try tools.read("rsa.enc.pem")
    }
}

/// The bytes of unpadded base64url `text` (test vectors are written that way), via Foundation.
func base64URLDecoded(_ text: String) -> [UInt8] {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Array(Data(base64Encoded: standard) ?? Data())
}
