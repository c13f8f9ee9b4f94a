import AppTestSupport
import Crypto
import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 22: AWS S3's events through an SNS subscription, end to end: the application in process with
/// `events.snsTopicArns`, its certificate hosts pointed at a loopback HTTPS server the test runs (a
/// python3 `http.server` over TLS with a certificate of the project's test CA, `scripts/make-test-ca.sh`)
/// that serves the signing certificate and counts the `SubscribeURL` GETs. The signing keys and
/// certificates are made at test time with the `openssl` tool, as SNS's are: RSA-2048 issued by the CA.
@Suite("SNS through the application")
struct SNSFlowTests {
    static let topic = "arn:aws:sns:us-east-1:123456789012:presignd-test"

    /// The test PKI and the HTTPS server serving its directory; stopped (by its PID) when released.
    final class CertificateServer: @unchecked Sendable {
        let directory: URL
        let port: Int
        private let process: Process
        private let log: URL

        init() throws {
            let tools = try ToolDirectory(prefix: "presignd-sns")
            let dir = tools.url
            directory = dir
            try tools.makeSigningPKI(commonName: "sns.test.amazonaws.com")
            // Serves the directory's files; `/subscribe…` answers 200 (SNS's confirmation). Each request
            // is one line of the log; the port is printed once listening.
            let server = """
                from http import server as hs; import ssl, sys
                class H(hs.SimpleHTTPRequestHandler):
                    def do_GET(self):
                        sys.stderr.write("GET " + self.path + "\\n"); sys.stderr.flush()
                        if self.path.startswith("/subscribe"):
                            body = b"<ConfirmSubscriptionResponse/>"
                            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
                            self.wfile.write(body)
                        else:
                            super().do_GET()
                    def log_message(self, *a): pass
                httpd = hs.ThreadingHTTPServer(("127.0.0.1", 0), H)
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                ctx.load_cert_chain("ca/server.pem", "ca/server.key")
                httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
                print(httpd.server_address[1], flush=True)
                httpd.serve_forever()
                """
            let logFile = dir.appendingPathComponent("requests.log")
            try Data().write(to: logFile)
            log = logFile
            let out = Pipe()
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", server]
            process.currentDirectoryURL = dir
            process.standardOutput = out
            process.standardError = try FileHandle(forWritingTo: logFile)
            try process.run()
            // The port line (read blocks until python prints it, or exits).
            var line = Data()
            while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                line.append(byte)
            }
            guard let port = Int(String(decoding: line, as: UTF8.self)) else {
                process.terminate()
                throw TestFailure("the HTTPS server did not start")
            }
            self.port = port
        }

        deinit {
            // SIGKILL by its PID and a bounded poll: Foundation's `terminate` + `waitUntilExit` never
            // returned here (the python server lived on and the test hung).
            kill(process.processIdentifier, SIGKILL)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            try? FileManager.default.removeItem(at: directory)
        }

        /// The requests served so far, as `GET /path`.
        var requests: [String] {
            String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).split(separator: "\n").map(
                String.init)
        }

        /// A file of the PKI.
        func read(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        }

        /// `https://127.0.0.1:port/<path>`.
        func url(_ path: String) -> String { "https://127.0.0.1:\(port)/\(path)" }
    }

    /// An SNS body of `fields` (those signed, in their string-to-sign order), signed v1 (SHA-1) by `keyPEM`.
    static func body(_ fields: [(String, String)], keyPEM: [UInt8], certURL: String) throws -> String {
        let signed = fields + [("TopicArn", topic)]
        let stringToSign = signed.sorted { $0.0 < $1.0 }.map { "\($0.0)\n\($0.1)\n" }.joined()
        let signature = try PrivateKey(pem: keyPEM).sign(Array(stringToSign.utf8), algorithm: .rsaPKCS1v15SHA1)
        var object = JSONObject()
        for (name, value) in signed + [
            ("SignatureVersion", "1"), ("Signature", Base64.encode(signature)), ("SigningCertURL", certURL),
        ] {
            _ = object.append(key: name, value: .string(value))
        }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    /// A signed Notification whose message is AWS S3's event of `key` in `bucket`.
    static func notification(id: String, bucket: String, key: String, keyPEM: [UInt8], certURL: String) throws -> String
    {
        let event =
            #"{"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1","#
            + #""eventTime":"2026-12-02T06:00:00.000Z","eventName":"ObjectCreated:Put","#
            + #""s3":{"s3SchemaVersion":"1.0","bucket":{"name":"\#(bucket)"},"object":{"key":"\#(key)","size":700,"eTag":"00"}}}]}"#
        return try body(
            [
                ("Message", event), ("MessageId", id), ("Timestamp", "2026-12-02T06:00:01.000Z"),
                ("Type", "Notification"),
            ],
            keyPEM: keyPEM, certURL: certURL)
    }

    @Test(
        "signed notification recorded once (and its replay), bad signature and wrong host 401, subscription confirmed")
    func snsThroughTheApplication() async throws {
        let tls = try await onThread { try CertificateServer() }
        let s3 = try TestEnvironment.s3()
        let prefix = "sns-\(UUID().uuidString.lowercased().prefix(8))/"
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_TYPES": ExactlyOnceFlowTests.types(prefix: prefix), "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "EO",
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SNS_TOPIC_ARNS": Self.topic,
                "PRESIGN_EVENTS_SNS_CERTIFICATE_HOSTS": "127.0.0.1:\(tls.port)",
                "PRESIGN_EVENTS_SNS_CA_FILE": tls.directory.appendingPathComponent("ca/ca.pem").path,
                "PRESIGN_EVENTS_RECORD_DELAY_MS": "0", "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "0",
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let signer = try tls.read("signer.key")
        let certURL = tls.url("signer.pem")

        // A live intent's upload, never confirmed: the signed notification records it, once.
        let key = try await ExactlyOnceFlowTests.uploadUnconfirmed(server, s3, user: "41", n: 0)
        let message = try Self.notification(
            id: UUID().uuidString.lowercased(), bucket: s3.bucket, key: key, keyPEM: signer, certURL: certURL)
        let first = try await ExactlyOnceFlowTests.post(server, "/events/sns", message)
        #expect(first.status == 200, "\(first.status) \(first.text)")
        #expect(
            try await eventually { try await ExactlyOnceFlowTests.records(server, user: "41").count == 1 },
            "recorded from the notification")
        // The same message again (SNS delivers at least once): still one record.
        let replay = try await ExactlyOnceFlowTests.post(server, "/events/sns", message)
        #expect(replay.status == 200, "\(replay.status) \(replay.text)")
        #expect(
            try await eventually {
                try await ExactlyOnceFlowTests.metric(server, "presignd_events_already_recorded_total") >= 1
            }, "the replay was processed")
        #expect(try await ExactlyOnceFlowTests.records(server, user: "41").count == 1)
        #expect(try await ExactlyOnceFlowTests.metric(server, "presignd_events_recorded_total") == 1)

        // Signed by another key than the certificate's: 401.
        let forged = try Self.notification(
            id: UUID().uuidString.lowercased(), bucket: s3.bucket, key: key, keyPEM: try tls.read("other.key"),
            certURL: certURL)
        #expect(try await ExactlyOnceFlowTests.post(server, "/events/sns", forged).status == 401)
        // A certificate URL on a host the patterns do not allow (the same server, named otherwise): 401,
        // and it is never fetched.
        let served = tls.requests.count
        let elsewhere = try Self.notification(
            id: UUID().uuidString.lowercased(), bucket: s3.bucket, key: key, keyPEM: signer,
            certURL: "https://localhost:\(tls.port)/signer.pem")
        #expect(try await ExactlyOnceFlowTests.post(server, "/events/sns", elsewhere).status == 401)
        #expect(tls.requests.count == served, "\(tls.requests)")

        // A SubscriptionConfirmation: the server GETs its SubscribeURL once before answering.
        let token = "t-\(UUID().uuidString.lowercased())"
        let subscribe = tls.url("subscribe?Action=ConfirmSubscription&Token=\(token)")
        let confirmation = try Self.body(
            [
                ("Message", "You have chosen to subscribe to the topic \(Self.topic)."),
                ("MessageId", UUID().uuidString.lowercased()), ("SubscribeURL", subscribe),
                ("Timestamp", "2026-12-02T06:00:02.000Z"), ("Token", token), ("Type", "SubscriptionConfirmation"),
            ], keyPEM: signer, certURL: certURL)
        let confirmed = try await ExactlyOnceFlowTests.post(server, "/events/sns", confirmation)
        #expect(confirmed.status == 200, "\(confirmed.status) \(confirmed.text)")
        #expect(tls.requests.filter { $0.contains(token) }.count == 1, "\(tls.requests)")
        #expect(tls.requests.filter { $0 == "GET /signer.pem" }.count >= 1, "the certificate came from the server")
    }
}
