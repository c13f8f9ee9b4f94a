import Foundation
import HTTP1
import HTTPServer
import Testing

/// Building the server's TLS context (through `HTTPServer.init` and `reloadTLS()`, the public way in):
/// errors name the file and OpenSSL's reason and never show key material.
@Suite("TLS context: start-up errors")
struct TLSServerContextTests {
    /// What a broken setup looks like, and what its error must say.
    enum Breakage: String, CaseIterable {
        case missingCertificate, missingKey, garbageCertificate, keyOfAnotherCertificate, encryptedKey
    }

    @Test(
        "a broken certificate or key stops the server from starting, with a message naming the file",
        arguments: Breakage.allCases)
    func startErrors(breakage: Breakage) throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let other = try TLSFixture()
        defer { other.remove() }
        var tls = ca.options
        let expected: String
        let reason: String  // OpenSSL 3.0's wording
        switch breakage {
        case .missingCertificate:
            tls.certificateFile = ca.path("absent.pem")
            expected = "certificate file \(ca.path("absent.pem"))"
            reason = "No such file or directory"
        case .missingKey:
            tls.privateKeyFile = ca.path("absent.key")
            expected = "private key file \(ca.path("absent.key"))"
            reason = "No such file or directory"
        case .garbageCertificate:
            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: ca.path("garbage.pem")))
            tls.certificateFile = ca.path("garbage.pem")
            expected = "certificate file \(ca.path("garbage.pem"))"
            reason = "no start line"
        case .keyOfAnotherCertificate:
            tls.privateKeyFile = other.keyFile
            expected = "private key file \(other.keyFile)"
            reason = "key values mismatch"
        case .encryptedKey:
            // Must fail at once instead of prompting for a passphrase on the terminal.
            let r = try ChildProcess.run(
                "openssl",
                ["pkey", "-in", ca.keyFile, "-aes256", "-passout", "pass:secret", "-out", ca.path("enc.key")])
            #expect(r.status == 0, "\(r.stderrText)")
            tls.privateKeyFile = ca.path("enc.key")
            expected = "private key file \(ca.path("enc.key"))"
            reason = "bad decrypt"
        }
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 1
        o.tls = tls
        let keyText = try String(contentsOfFile: ca.keyFile, encoding: .utf8)
        let keyBody = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        do {
            _ = try HTTPServer(options: o, router: Router())
            Issue.record("the server started with \(breakage)")
        } catch {
            let text = error.description
            #expect(text.hasPrefix("TLS "), "\(text)")
            #expect(text.contains(expected), "\(text)")
            #expect(!text.contains("BEGIN") && !text.contains(keyBody), "no key material in \(text)")
            if case .tls(_, let given) = error {
                #expect(given.contains(reason), "OpenSSL's reason: \(given)")
            } else {
                Issue.record("not a TLS error: \(error)")
            }
        }
    }

    @Test("reloadTLS on a server without TLS says so")
    func reloadWithoutTLS() throws {
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 1
        let s = try HTTPServer(options: o, router: Router())
        defer {
            s.shutdown()
            s.wait()
        }
        #expect(throws: ServerError.self) { try s.reloadTLS() }
        do {
            try s.reloadTLS()
        } catch {
            #expect(error.description == "TLS is not enabled on this server")
        }
    }

    @Test(
        "TLS versions are spelled as in the configuration", arguments: [("1.2", true), ("1.3", true), ("1.1", false)])
    func versionSpelling(text: String, known: Bool) {
        #expect((TLSOptions.Version(rawValue: text) != nil) == known)
        #expect(TLSOptions(certificateFile: "c", privateKeyFile: "k").minVersion == .tls12)
    }
}
