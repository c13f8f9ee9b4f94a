import Config
import Crypto
import HTTP1
import HTTPServer
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import Testing
import Uploads
import UploadsTestSupport

@testable import App

/// The issue routes in process, against a fake intent sink: a URL is answered only once its intent is
/// stored (never before), a refused or unstored intent is a 503 with `Retry-After` and no URL, and HEAD
/// records none.
@Suite("PresignService in process")
struct PresignServiceInProcessTests {
    static func service(_ sink: RecordingIntentSink) throws -> PresignService {
        let signer = RotatingPresigner(
            try Presigner(
                credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("test-secret")),
                region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path))
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 4, onError: { _ in })
        let env = UploadEnvironment(
            nowMillis: { 1_700_000_000_000 }, newUUID: { "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a" })
        let config = PresigndConfig.defaults
        let keeper = IntentKeeper(writer: writer, sink: sink)
        let issuer = Issuer(
            catalog: try UploadCatalog(config.types), signers: Issuer.Signers(pathStyle: signer, configured: signer),
            bucket: config.s3.bucket, intents: keeper,
            ownership: ImageKeyOwnership(store: store, intents: keeper, nowMillis: env.nowMillis), env: env,
            signIfNoneMatch: false)
        return PresignService(
            config: config, issuer: issuer,
            gate: Gate(callers: DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1")))
    }

    /// The answer of a request, given at once or later (a deferred route's).
    final class Answer: Sendable {
        private let given = Mutex<Response?>(nil)
        /// The responder that fills this answer.
        var responder: Responder { Responder { [self] response in given.withLock { $0 = response } } }
        /// The answer, nil while none was given.
        var response: Response? { given.withLock { $0 } }
        /// An answer given at once.
        init(_ response: Response? = nil) { given.withLock { $0 = response } }
    }

    /// Starts `method target` as the router would (the handler, then its worker part on this thread):
    /// its answer, which a deferred route gives only when its intent's commit ends.
    static func start(
        _ service: PresignService, _ method: HTTPMethod, _ target: String, body: String = ""
    ) -> Answer {
        var head = "\(method.name) \(target) HTTP/1.1\r\nHost: presignd\r\nX-User-Id: 7\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        guard case .complete(let parsed, _) = RequestParser.parseHead(Array((head + "\r\n").utf8)) else {
            Issue.record("test request does not parse")
            return Answer(Response(status: 0))
        }
        let path = String(target.prefix { $0 != "?" })
        let routeMethod: HTTPMethod = method == .HEAD ? .GET : method
        guard let route = service.routes().first(where: { $0.method == routeMethod && $0.template == path }) else {
            Issue.record("no route for \(method) \(path)")
            return Answer(Response(status: 0))
        }
        let request = Request(
            head: parsed, body: Array(body.utf8), pathParameters: [], requestId: "t", peer: "127.0.0.1:1")
        switch route.handler(request) {
        case .respond(let response): return Answer(response)
        case .blocking(let work): return Answer(work())
        case .deferred(let start), .blockingDeferred(let start):
            let answer = Answer()
            start(answer.responder)
            return answer
        }
    }

    /// The answer of `method target` when the sink answers at once.
    static func send(_ service: PresignService, _ method: HTTPMethod, _ target: String, body: String = "") -> Response {
        guard let response = start(service, method, target, body: body).response else {
            Issue.record("no answer to \(method) \(target)")
            return Response(status: 0)
        }
        return response
    }

    static let keyedBody = #"{"contentType":"image/jpeg","imageKey":"0B7E6A57-2C1B-4C2E-9D6F-1F2E3D4C5B6A"}"#

    @Test(
        "no answer before the intent is stored: 200 with the URL once it is, 503 with Retry-After and no URL when not")
    func answeredOnlyOnceStored() throws {
        for outcome in [IntentOutcome.stored, .timedOut] {
            let sink = RecordingIntentSink(mode: .holding)
            let service = try Self.service(sink)
            let answers = [
                Self.start(service, .GET, "/presigned-url?type=PROFILE&ext=jpg"),
                Self.start(service, .GET, "/v1/storage/presigned-url?type=PROFILE&ext=jpg"),
                Self.start(service, .POST, "/presigned-url", body: Self.keyedBody),
            ]
            #expect(sink.heldCount == answers.count, "every route handed its intent over")
            for answer in answers { #expect(answer.response == nil, "answered before the intent was stored") }
            sink.release(with: outcome)
            for answer in answers {
                let r = try #require(answer.response, "answered once the commit ended")
                let text = String(decoding: r.body, as: UTF8.self)
                if outcome == .stored {
                    #expect(r.status == 200 && text.contains("X-Amz-Signature"), "\(text)")
                } else {
                    #expect(r.status == 503 && text.contains(#""code":"STORE_UNAVAILABLE""#), "\(text)")
                    #expect(!text.contains("X-Amz-Signature"), "no URL is handed out")
                    #expect(r.headers.contains { $0.name == "Retry-After" && $0.value == "5" })
                }
                #expect(r.userId == "7", "marked with the caller for the access log")
            }
        }
    }

    @Test("a full intent queue: both issue routes answer 503 with Retry-After and no URL")
    func refusedIntent() throws {
        let service = try Self.service(RecordingIntentSink(refusing: true))
        for r in [
            Self.send(service, .GET, "/presigned-url?type=PROFILE&ext=jpg"),
            Self.send(service, .POST, "/presigned-url", body: Self.keyedBody),
        ] {
            let text = String(decoding: r.body, as: UTF8.self)
            #expect(r.status == 503, "\(text)")
            #expect(text.contains(#""code":"STORE_UNAVAILABLE""#))
            #expect(!text.contains("X-Amz-Signature"), "no URL is handed out")
            #expect(r.headers.contains { $0.name == "Retry-After" && $0.value == "5" })
        }
    }

    @Test("GET records the intent of the URL it returns; HEAD answers without recording one")
    func headRecordsNoIntent() throws {
        let sink = RecordingIntentSink()
        let service = try Self.service(sink)
        let get = Self.send(service, .GET, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(get.status == 200)
        #expect(sink.intents.count == 1)
        let head = Self.send(service, .HEAD, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(head.status == 200)
        #expect(sink.intents.count == 1, "HEAD recorded an intent for a URL nobody received")
    }
}
