import Foundation
import HTTP1
import HTTPServer
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// HTTPS end to end: the in-process server terminates TLS; real clients (`curl`, `openssl s_client`)
/// trust a throw-away CA made by `scripts/make-test-ca.sh`.
@Suite("TLS termination on 127.0.0.1 (in process, real clients)")
struct TLSLiveServerTests {
    @Test(
        "curl trusting the test CA gets 200 and the body over HTTP/1.1 (ALPN), by IP and by DNS name",
        arguments: ["127.0.0.1", "localhost"])
    func getWithCA(host: String) throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let r = try Curl.run([
            "--cacert", ca.caFile, "--resolve", "localhost:\(s.port):127.0.0.1", "-w", "\n%{http_code} %{http_version}",
            "https://\(host):\(s.port)/hello",
        ])
        #expect(r.status == 0, "curl: \(r.stderrText)")
        #expect(r.text == "{\"status\":\"ok\"}\n200 1.1")
    }

    @Test("curl without the test CA fails verification; the handshake failure is counted and the server goes on")
    func withoutCAFails() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let r = try Curl.run([s.url("/hello")])
        #expect(r.status == 60, "expected curl's 'certificate not trusted' (60): \(r.status) \(r.stderrText)")
        #expect(r.text.isEmpty)
        var counted = false
        for _ in 0..<100 where !counted {
            counted = s.server.metrics.render().contains("presignd_tls_handshake_failures_total 1")
            if !counted { usleep(20_000) }
        }
        #expect(counted)
        let ok = try Curl.run(["--cacert", ca.caFile, s.url("/hello")])
        #expect(ok.status == 0 && ok.text == #"{"status":"ok"}"#)
    }

    @Test("keep-alive: curl fetches the same URL twice over one connection")
    func keepAlive() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let r = try Curl.run(["--cacert", ca.caFile, "-w", "|%{num_connects}\n", s.url("/hello"), s.url("/hello")])
        #expect(r.status == 0, "curl: \(r.stderrText)")
        #expect(r.text == "{\"status\":\"ok\"}|1\n{\"status\":\"ok\"}|0\n")
    }

    @Test(
        "POST bodies over TLS are read whole: small, 300 KiB (many records), chunked",
        arguments: [(5, false), (300_000, false), (70_000, true)])
    func post(size: Int, chunked: Bool) throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let body = Data(TLSTestServer.pattern(count: size))
        var args = ["--cacert", ca.caFile, "--data-binary", "@-", "-H", "Content-Type: application/octet-stream"]
        if chunked { args += ["-H", "Transfer-Encoding: chunked"] }
        let r = try Curl.run(args + [s.url("/echo")], input: body)
        #expect(r.status == 0, "curl: \(r.stderrText)")
        #expect(r.stdout == body)
    }

    @Test("a 12 MB response reaches a client that stalls before reading (partial TLS writes, EPOLLOUT)")
    func largeResponseToSlowReader() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let size = 12_000_000  // more than the socket buffers hold (tcp_wmem's 4 MiB maximum)
        let c = try OpenSSLClient(port: s.port, caFile: ca.caFile)
        defer { c.close() }
        c.send("GET /big?bytes=\(size) HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        usleep(300_000)  // the pipe to the test fills, s_client stops reading, the server's writes block
        let r = try #require(c.readResponse(timeout: 20))
        #expect(r.status == 200)
        #expect(r.body.count == size)
        #expect(r.body == TLSTestServer.pattern(count: size))
        #expect(c.readResponse()?.text == #"{"status":"ok"}"#)
    }

    @Test("pipelining over TLS: three requests in one write get three ordered responses, a blocking one between")
    func pipelining() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        let c = try OpenSSLClient(port: s.port, caFile: ca.caFile)
        defer { c.close() }
        c.send(
            "GET /n/1 HTTP/1.1\r\nHost: a\r\n\r\nGET /slow?ms=50 HTTP/1.1\r\nHost: a\r\n\r\n"
                + "GET /n/3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(c.readResponse()?.text == "1")
        #expect(c.readResponse()?.text == "slept 50")
        let last = c.readResponse()
        #expect(last?.text == "3")
        #expect(last?.header("Connection") == "close")
        #expect(c.endsWithin(5), "the server closes after Connection: close")
        #expect(c.unreadBytes == 0)
    }

    @Test("pipelined requests split into tiny records wait inside OpenSSL while a handler runs, then all answered")
    func pipeliningAcrossRecords() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options) { $0.maxPipelinedPerRead = 4 }
        defer { s.stop() }
        // 512-byte records: OpenSSL reads them all ahead from the socket but decrypts one per SSL_read,
        // so the rest sit in the session where epoll cannot see them.
        let c = try OpenSSLClient(port: s.port, caFile: ca.caFile, extra: ["-max_send_frag", "512"])
        defer { c.close() }
        // About 22 KB in 44 records: s_client sends them with one write each, so all but the first
        // arrive together and one socket read takes many records.
        let pad = "X-Pad: " + String(repeating: "p", count: 700) + "\r\n"
        var batch = ""
        for i in 0..<30 {
            let path = i == 10 ? "/slow?ms=50" : "/n/\(i)"
            batch += "GET \(path) HTTP/1.1\r\nHost: a\r\n\(pad)\r\n"
        }
        c.send(batch)
        for i in 0..<30 {
            #expect(c.readResponse()?.text == (i == 10 ? "slept 50" : "\(i)"))
        }
    }

    @Test("TLS 1.1 is refused by the server; TLS 1.2 is accepted")
    func oldVersionsRefused() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        // SECLEVEL=0 lets this client offer TLS 1.1 at all, so the refusal is the server's.
        let old = try Curl.run([
            "--cacert", ca.caFile, "--tlsv1.1", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0", s.url("/hello"),
        ])
        #expect(old.status == 35, "expected a handshake failure (35): \(old.status) \(old.stderrText)")
        let probe = try ChildProcess.run(
            "openssl",
            ["s_client", "-connect", "127.0.0.1:\(s.port)", "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"], timeout: 10)
        #expect(probe.stderrText.contains("alert protocol version"), "\(probe.stderrText)")
        let v12 = try Curl.run(["--cacert", ca.caFile, "--tlsv1.2", "--tls-max", "1.2", s.url("/hello")])
        #expect(v12.status == 0, "curl: \(v12.stderrText)")
        #expect(v12.text == #"{"status":"ok"}"#)
    }

    @Test("minVersion 1.3 refuses TLS 1.2 and serves TLS 1.3")
    func minimumTLS13() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        var options = ca.options
        options.minVersion = .tls13
        let s = try TLSTestServer(tls: options)
        defer { s.stop() }
        let v12 = try Curl.run(["--cacert", ca.caFile, "--tls-max", "1.2", s.url("/hello")])
        #expect(v12.status == 35, "expected a handshake failure (35): \(v12.status) \(v12.stderrText)")
        let v13 = try Curl.run(["-v", "--cacert", ca.caFile, s.url("/hello")])
        #expect(v13.status == 0, "curl: \(v13.stderrText)")
        #expect(v13.stderrText.contains("TLSv1.3"))
    }

    @Test("plain HTTP sent to the TLS port is closed without a plaintext answer; the server goes on")
    func plainHTTPToTLSPort() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        for _ in 0..<5 {
            let c = try RawClient(port: s.port, timeoutMs: 3000)
            c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(c.readResponse() == nil, "no HTTP response, only (at most) a TLS alert, then the close")
        }
        let ok = try Curl.run(["--cacert", ca.caFile, s.url("/hello")])
        #expect(ok.status == 0 && ok.text == #"{"status":"ok"}"#)
        var open = s.server.openConnections
        for _ in 0..<100 where open > 0 {
            usleep(20_000)
            open = s.server.openConnections
        }
        #expect(open == 0)
    }

    @Test("a client that connects and never completes a handshake is closed at the header deadline")
    func handshakeDeadline() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options) { $0.headerTimeoutMs = 500 }
        defer { s.stop() }
        let silent = try RawClient(port: s.port, timeoutMs: 5000)
        let partial = try RawClient(port: s.port, timeoutMs: 5000)
        partial.send([0x16, 0x03, 0x01, 0x02])  // the start of a ClientHello record, then nothing
        let start = Date()
        #expect(silent.isClosedByPeer())
        #expect(partial.isClosedByPeer())
        let elapsed = Date().timeIntervalSince(start)
        // Never before the deadline; no upper bound (a loaded machine only makes it later).
        #expect(elapsed >= 0.35, "closed after \(elapsed) s")
        let ok = try Curl.run(["--cacert", ca.caFile, s.url("/hello")])
        #expect(ok.status == 0)
    }

    @Test("reloadTLS: new connections use the new certificate, open ones keep the old one")
    func reload() throws {
        let first = try TLSFixture()
        defer { first.remove() }
        let second = try TLSFixture()
        defer { second.remove() }
        let live = try TLSFixture()  // the files the server is configured with
        defer { live.remove() }
        try replace(live.certificateFile, with: first.certificateFile)
        try replace(live.keyFile, with: first.keyFile)
        let s = try TLSTestServer(tls: live.options)
        defer { s.stop() }
        let before = try Curl.run(["--cacert", first.caFile, s.url("/hello")])
        #expect(before.status == 0)
        let open = try OpenSSLClient(port: s.port, caFile: first.caFile)
        defer { open.close() }
        open.send("GET /n/1 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(open.readResponse()?.text == "1")

        try replace(live.certificateFile, with: second.certificateFile)
        try replace(live.keyFile, with: second.keyFile)
        try s.server.reloadTLS()

        let withNew = try Curl.run(["--cacert", second.caFile, s.url("/hello")])
        #expect(withNew.status == 0, "curl: \(withNew.stderrText)")
        #expect(withNew.text == #"{"status":"ok"}"#)
        let withOld = try Curl.run(["--cacert", first.caFile, s.url("/hello")])
        #expect(withOld.status == 60)
        open.send("GET /n/2 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(open.readResponse()?.text == "2", "a connection made before the reload keeps working")
    }

    @Test("a failed reload reports the file and OpenSSL's reason, and the old certificate still serves")
    func failedReload() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let other = try TLSFixture()
        defer { other.remove() }
        let s = try TLSTestServer(tls: ca.options)
        defer { s.stop() }
        try FileManager.default.moveItem(atPath: ca.keyFile, toPath: ca.path("moved.key"))
        do {
            try s.server.reloadTLS()
            Issue.record("reloadTLS succeeded without a key file")
        } catch {
            #expect(error.description.contains("private key file \(ca.keyFile)"), "\(error)")
            #expect(error.description.contains("No such file"), "\(error)")
        }
        let stillOld = try Curl.run(["--cacert", ca.caFile, s.url("/hello")])
        #expect(stillOld.status == 0 && stillOld.text == #"{"status":"ok"}"#)
        // A key that does not belong to the certificate is refused too.
        try replace(ca.keyFile, with: other.keyFile)
        #expect(throws: ServerError.self) { try s.server.reloadTLS() }
        let stillServing = try Curl.run(["--cacert", ca.caFile, s.url("/hello")])
        #expect(stillServing.status == 0)
    }

    @Test("graceful shutdown over TLS finishes an in-flight request with Connection: close")
    func gracefulShutdown() throws {
        let ca = try TLSFixture()
        defer { ca.remove() }
        let s = try TLSTestServer(tls: ca.options)
        let c = try OpenSSLClient(port: s.port, caFile: ca.caFile)
        defer { c.close() }
        c.send("GET /slow?ms=400 HTTP/1.1\r\nHost: a\r\n\r\n")
        // Stop only once the request is in its handler (the event, not a guess at how long the handshake takes).
        var inFlight = false
        for _ in 0..<30_000 where !inFlight {
            inFlight = s.slowStarted.count.load(ordering: .relaxed) > 0
            if !inFlight { usleep(1_000) }
        }
        #expect(inFlight, "the request reached its handler")
        let stopper = PThreadRunner { s.stop() }
        let r = try #require(c.readResponse())
        #expect(r.text == "slept 400")
        #expect(r.header("Connection") == "close")
        #expect(c.endsWithin(5))
        stopper.join()
    }

    /// Copies `source` over `destination`.
    private func replace(_ destination: String, with source: String) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: destination) { try fm.removeItem(atPath: destination) }
        try fm.copyItem(atPath: source, toPath: destination)
    }
}
