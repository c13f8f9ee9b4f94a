import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 21's proofs that need processes: a URL is answered only once its intent is stored. kill -9
/// under issue load loses no answered URL (both stores); a second instance on the same PostgreSQL acts
/// at once on what the first one issued (never a 404). (A stopped or locked store: IssueOutageTests.)
@Suite("Issue 21: every answered URL is stored", .serialized, .heavy(aloneSeconds: 20))
struct IssuePromiseTests {
    /// One request on `client` (keep-alive) as `user`; nil when the connection died.
    static func send(_ client: RawClient, _ method: String, _ path: String, body: String? = nil, user: String = "9")
        -> RawClient.Response?
    {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: a\r\nX-User-Id: \(user)\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        client.send(head + "\r\n" + (body ?? ""))
        return client.readResponse()
    }

    /// Issues a URL by client P's GET (`clientP`) or client B's POST; the answer and the key it names.
    static func issue(_ client: RawClient, clientP: Bool) -> (RawClient.Response, String?)? {
        let answer =
            clientP
            ? send(client, "GET", "/presigned-url?type=PROFILE&ext=jpg")
            : send(
                client, "POST", "/presigned-url",
                body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString.lowercased())"}"#)
        guard let answer else { return nil }
        let json = try? JSONValue(parsing: answer.body)
        return (answer, json?[clientP ? "key" : "imageKey"]?.stringValue)
    }

    /// A loader thread: issues in turn by GET and POST on one connection until the server dies or `stop`,
    /// keeping the key of every 200 in `answered`; any other answer of a live server goes to `odd`.
    static func loader(port: Int, answered: KeyQueue, odd: KeyQueue, stop: StopFlag) {
        guard let c = try? RawClient(port: port, timeoutMs: 60_000) else { return }
        var clientP = false
        while !stop.isSet {
            clientP.toggle()
            guard let (answer, key) = issue(c, clientP: clientP) else { return }  // killed
            guard answer.status == 200, let key else {
                odd.add((answer.status, answer.text))
                return
            }
            answered.add((0, key))
        }
    }

    @Test(
        "kill -9 under GET and POST /presigned-url load: every URL answered 200 has its intent stored",
        arguments: Backend.allCases)
    func killNineKeepsEveryAnsweredIntent(backend: Backend) async throws {
        let dir = Temporary.directory()
        let url = try await backend.recordsURL(dir: dir)
        // A commit timeout far beyond any commit on a loaded machine: every answer here is a 200.
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil, extra: ["PRESIGN_RECORDS_URL": url, "PRESIGN_RECORDS_INTENT_COMMIT_TIMEOUT_MS": "60000"])
        var rng = SystemRandomNumberGenerator()
        let answered = KeyQueue([])
        let odd = KeyQueue([])
        for cycle in 0..<3 {
            let server = try await ServerProcess(environment: env)
            let port = server.port
            let stop = StopFlag()
            let group = DispatchGroup()
            for _ in 0..<6 {
                DispatchQueue.global().async(group: group) {
                    Self.loader(port: port, answered: answered, odd: odd, stop: stop)
                }
            }
            // The event: 200 more answers this cycle (bounded, so a broken server cannot hang the suite),
            // then the kill at a random moment of the load.
            let before = answered.all.count
            _ = await eventually(within: 120) { answered.all.count >= before + 200 }
            try await Task.sleep(for: .microseconds(UInt64.random(in: 0...200_000, using: &rng)))
            server.signal(SIGKILL)
            _ = await server.exit()
            stop.set()
            _ = try await onThread { group.wait() }
            #expect(answered.all.count >= before + 200, "cycle \(cycle): too few answers before the kill")
        }
        #expect(odd.all.isEmpty, "answers a live server should not give: \(odd.all.prefix(5))")
        let store = try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000)
        var missing: [String] = []
        for (_, key) in answered.all where try store.intent(imageKey: key) == nil { missing.append(key) }
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(answered.all.count) answered URLs have no intent: \(missing.prefix(5))")
        print("issue kill -9 (\(backend)): \(answered.all.count) answered URLs over 3 kills, every intent stored")
    }

    @Test("two instances on one PostgreSQL: created or issued on A, signed or confirmed on B at once, never a 404")
    func secondInstanceSeesFreshIntents() async throws {
        let s3 = try TestEnvironment.s3()
        let url = try await Backend.postgres.recordsURL(dir: Temporary.directory())
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_RECORDS_URL": url, "PRESIGN_UPPY_ENABLED": "true",
                "PRESIGN_CORS_ALLOWED_ORIGINS": UppyFlowTests.origin,
            ])
        let a = try await ServerProcess(environment: env)
        defer { a.stop() }
        let b = try await ServerProcess(environment: env)
        defer { b.stop() }
        var partProblems: [String] = []
        for _ in 0..<50 {
            let (key, uploadId) = try await UppyFlowTests.create(a)
            let base = "/s3/multipart/\(UppyFlowTests.q(uploadId))"
            let part = try await UppyFlowTests.call(b, "GET", "\(base)/1?key=\(UppyFlowTests.q(key))")
            if part.status != 200 { partProblems.append("\(part.status) \(part.text)") }
            _ = try await UppyFlowTests.call(a, "DELETE", "\(base)?key=\(UppyFlowTests.q(key))")
        }
        #expect(partProblems.isEmpty, "part URLs on B: \(partProblems.count) of 50 failed: \(partProblems.prefix(3))")
        var confirmProblems: [String] = []
        for i in 0..<50 {
            let key = try await ImagesFlowTests.uploadP(
                a, s3, user: "42", bytes: TestImages.jpeg(width: 4, height: 3, tail: Array("two-\(i)".utf8)))
            let confirmed = try await ImagesFlowTests.request(
                b, "POST", "/images", user: "42", body: #"{"imageKey":"\#(key)"}"#)
            if confirmed.status != 201 { confirmProblems.append("\(confirmed.status) \(confirmed.text)") }
        }
        #expect(
            confirmProblems.isEmpty,
            "confirmations on B: \(confirmProblems.count) of 50 failed: \(confirmProblems.prefix(3))")
    }
}
