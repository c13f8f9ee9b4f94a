import Crypto
import Foundation
import TestSupport

/// A test CA made by scripts/make-test-ca.sh and two RSA-2048 signing certificates it issues (the shape
/// of SNS's signing certificates), made once per test process with the `openssl` tool.
struct SNSTestPKI: Sendable {
    /// The signing key of `certificatePEM`.
    let signingKeyPEM: [UInt8]
    /// The certificate SNS's `SigningCertURL` would serve, issued by the test CA.
    let certificatePEM: [UInt8]
    /// Another key, with its own certificate from the same CA (a bad signer).
    let otherKeyPEM: [UInt8]
    /// The other key's certificate.
    let otherCertificatePEM: [UInt8]
    /// The test CA's certificate.
    let caPEM: [UInt8]

    /// The PKI of this test process, or the error that prevented making it.
    static let shared: Result<SNSTestPKI, Error> = Result { try SNSTestPKI() }

    /// Makes the PKI in a temporary directory (`ToolDirectory.makeSigningPKI`) and reads it.
    private init() throws {
        let tools = try ToolDirectory(prefix: "presignd-sns-pki")
        defer { tools.remove() }
        try tools.makeSigningPKI(commonName: "sns.test-1.amazonaws.com")
        signingKeyPEM = try tools.read("signer.key")
        certificatePEM = try tools.read("signer.pem")
        otherKeyPEM = try tools.read("other.key")
        otherCertificatePEM = try tools.read("other.pem")
        caPEM = try tools.read("ca/ca.pem")
    }
}
