import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The chat-room types (issue 19, point 11), end to end: the application in process and RGW: `CHAT` and
/// `CHAT_PROFILE` need a `chatroomId`, as client P's own server requires (422 in its shape without
/// one); `CHATROOM_PROFILE`, which client P's app sends without one, gets a server-made UUID in that key
/// segment; a type configured `chatroomId: server-made` goes without as well.
@Suite("Chat-room types and their chatroomId (RGW)", .serialized)
struct ChatroomIdFlowTests {
    /// The chat-room segment's pattern: a lower-case UUID.
    static let uuid = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"

    /// (query, key pattern with the chat-room id captured): the server-made id of CHATROOM_PROFILE, the
    /// caller's for the two chat types.
    static let types: [(String, String)] = [
        ("type=CHATROOM_PROFILE&ext=jpeg", #"^delete/chatroom/(\#(uuid))/[0-9a-f-]{36}_\d{13}\.jpeg$"#),
        ("type=CHAT&ext=jpg&chatroomId=77", #"^delete/chatroom/(77)/chat/[0-9a-f-]{36}/[0-9a-f-]{36}_\d{13}\.jpg$"#),
        (
            "type=CHAT_PROFILE&ext=png&chatroomId=78",
            #"^delete/chatroom/(78)/chat_profile/9/[0-9a-f-]{36}_\d{13}\.png$"#
        ),
    ]

    /// The chat-room id of `key` by `pattern`, or nil when the key does not match.
    static func chatroomId(_ key: String, _ pattern: String) throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: key, range: NSRange(key.startIndex..., in: key)),
            let range = Range(match.range(at: 1), in: key)
        else { return nil }
        return String(key[range])
    }

    /// Client P's upload of `query`'s URL (as `ImagesFlowTests.uploadP`, with the whole query). Returns the key.
    static func uploadP(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, query: String) async throws -> String {
        let r = try await ClientPFlowTests.issue(server, query: query, user: "9")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue, "\(query): \(r.text)")
        let t = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        let bytes = TestImages.jpeg(width: 10, height: 10)
        #expect(
            try await ClientPFlowTests.put(s3, target: t.path + "?" + t.query, contentType: "image/jpeg", body: bytes)
                == 200)
        return try #require(json["key"]?.stringValue)
    }

    @Test(
        "CHATROOM_PROFILE without a chatroomId: a fresh UUID per request; with theirs the chat types; each confirms",
        arguments: Backend.allCases)
    func chatroomIds(backend: Backend) async throws {
        let (server, s3) = try await ImagesFlowTests.start(backend)
        defer { server.stop() }
        for (query, pattern) in Self.types {
            var ids: Set<String> = []
            for _ in 0..<3 {
                let r = try await ClientPFlowTests.issue(server, query: query, user: "9")
                #expect(r.status == 200, "\(query): \(r.text)")
                let key = try #require(try JSONValue(parsing: r.body)["key"]?.stringValue)
                let id = try #require(try Self.chatroomId(key, pattern), "\(query) gave \(key)")
                ids.insert(id)
            }
            let serverMade = query.hasPrefix("type=CHATROOM_PROFILE")
            #expect(ids.count == (serverMade ? 3 : 1), "\(query): a server-made id is new each time, a given one kept")
            // Upload as client P does, confirm: promoted under the same chat-room id.
            let key = try await Self.uploadP(server, s3, query: query)
            let id = try #require(try Self.chatroomId(key, pattern))
            let confirmed = try await ImagesFlowTests.request(
                server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(key)"}"#)
            #expect(confirmed.status == 201, "\(query): \(confirmed.text)")
            let record = try JSONValue(parsing: confirmed.body)
            let permanent = try #require(record["key"]?.stringValue)
            #expect(permanent.hasPrefix("chatroom/\(id)/"), "\(permanent)")
            #expect(permanent.contains("/origin/"))
            let type = String(query.split(separator: "&")[0].dropFirst("type=".count))
            #expect(record["type"]?.stringValue == type)
            #expect(try await ClientPFlowTests.get(s3, key: permanent).0 == 200)
        }
    }

    @Test(
        "CHAT and CHAT_PROFILE without a chatroomId: client P's 422, on both paths and on POST; CHATROOM_PROFILE goes")
    func requiredByDefault() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        for type in ["CHAT", "CHAT_PROFILE"] {
            for path in ["/presigned-url", "/v1/storage/presigned-url"] {
                // Not sent, and sent empty (which means not sent).
                for query in ["type=\(type)&ext=jpg", "type=\(type)&ext=jpg&chatroomId="] {
                    let r = try await server.exchange("GET", "\(path)?\(query)", headers: "X-User-Id: 9\r\n")
                    #expect(r.status == 422, "\(path)?\(query)")
                    #expect(
                        r.text
                            == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"chatroomId":"chatroomId is required for type \#(type)"}}"#,
                        "\(path)?\(query)")
                }
            }
            // POST has no chatroomId to give.
            let posted = try await ClientBFlowTests.post(
                server, #"{"type":"\#(type)","contentType":"image/jpeg","imageKey":"\#(UUID())"}"#)
            #expect(posted.status == 422)
            #expect(posted.text.contains("requires a chatroomId"), "\(posted.text)")
        }
        // What client P's app really sends: PROFILE and CHATROOM_PROFILE with ext=jpeg, never a chatroomId.
        for type in ["PROFILE", "CHATROOM_PROFILE"] {
            let r = try await ClientPFlowTests.issue(server, query: "type=\(type)&ext=jpeg", user: "9")
            #expect(r.status == 200, "\(type): \(r.text)")
        }
    }

    @Test("a supplied chatroomId is used where the type takes one, ignored elsewhere, and must be a number")
    func suppliedChatroomId() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        for (query, prefix) in [
            ("type=CHATROOM_PROFILE&ext=jpg&chatroomId=77", "delete/chatroom/77/"),
            ("type=CHAT&ext=jpg&chatroomId=77", "delete/chatroom/77/chat/"),
            ("type=CHAT_PROFILE&ext=jpg&chatroomId=77", "delete/chatroom/77/chat_profile/9/"),
            // Empty means not sent.
            ("type=CHATROOM_PROFILE&ext=jpg&chatroomId=", "delete/chatroom/"),
            // A type without the segment ignores it.
            ("type=PROFILE&ext=jpg&chatroomId=77", "delete/profile/9/"),
        ] {
            let r = try await ClientPFlowTests.issue(server, query: query, user: "9")
            #expect(r.status == 200, "\(query): \(r.text)")
            let key = try JSONValue(parsing: r.body)["key"]?.stringValue ?? ""
            #expect(key.hasPrefix(prefix), "\(query) gave \(key)")
        }
        let bad = try await ClientPFlowTests.issue(server, query: "type=CHAT&ext=jpg&chatroomId=abc", user: "9")
        #expect(bad.status == 422)
        // Client B's POST takes no chatroomId: CHATROOM_PROFILE gets a server-made one there.
        let uuid = UUID().uuidString
        let posted = try await ClientBFlowTests.post(
            server, #"{"type":"CHATROOM_PROFILE","contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(posted.status == 200, "\(posted.text)")
        let key = try JSONValue(parsing: posted.body)["key"]?.stringValue ?? ""
        #expect(try Self.chatroomId(key, #"^delete/chatroom/(\#(Self.uuid))/"#) != nil, "\(key)")
    }

    @Test("a chat type configured chatroomId: server-made goes without one again")
    func serverMadeByConfiguration() async throws {
        let dir = Temporary.directory()
        try #"{"types": {"CHAT": {"chatroomId": "server-made"}, "CHAT_PROFILE": {"requiresChatroomId": false}}}"#.write(
            toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env, arguments: ["--config", dir + "/config.json"])
        defer { server.stop() }
        for (type, pattern) in [
            ("CHAT", #"^delete/chatroom/(\#(Self.uuid))/chat/"#),
            ("CHAT_PROFILE", #"^delete/chatroom/(\#(Self.uuid))/chat_profile/9/"#),
        ] {
            let r = try await ClientPFlowTests.issue(server, query: "type=\(type)&ext=jpg", user: "9")
            #expect(r.status == 200, "\(type): \(r.text)")
            let key = try JSONValue(parsing: r.body)["key"]?.stringValue ?? ""
            #expect(try Self.chatroomId(key, pattern) != nil, "\(key)")
        }
    }
}
