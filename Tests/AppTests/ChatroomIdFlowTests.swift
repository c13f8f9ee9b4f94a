import Foundation
import JSON
import TestSupport
import Testing

/// Types as client P's app sends them: `CHATROOM_PROFILE`, `CHAT` and `CHAT_PROFILE` without a chatroomId
/// get a server-made UUID in that key segment (its own server did so); a type configured
/// `chatroomId: required` still answers client P's 422. End to end against the binary and RGW.
@Suite("Chat-room types without a chatroomId (binary, RGW)", .serialized)
struct ChatroomIdFlowTests {
    /// The chat-room segment's pattern: a lower-case UUID.
    static let uuid = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"

    /// (query, key pattern with the server-made chat-room id captured).
    static let types: [(String, String)] = [
        ("type=CHATROOM_PROFILE&ext=jpeg", #"^delete/chatroom/(\#(uuid))/[0-9a-f-]{36}_\d{13}\.jpeg$"#),
        ("type=CHAT&ext=jpg", #"^delete/chatroom/(\#(uuid))/chat/[0-9a-f-]{36}/[0-9a-f-]{36}_\d{13}\.jpg$"#),
        ("type=CHAT_PROFILE&ext=png", #"^delete/chatroom/(\#(uuid))/chat_profile/9/[0-9a-f-]{36}_\d{13}\.png$"#),
    ]

    /// The server-made chat-room id of `key` by `pattern`, or nil when the key does not match.
    static func chatroomId(_ key: String, _ pattern: String) throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: key, range: NSRange(key.startIndex..., in: key)),
            let range = Range(match.range(at: 1), in: key)
        else { return nil }
        return String(key[range])
    }

    @Test("without a chatroomId: a fresh lower-case UUID per request; the upload confirms", arguments: Backend.allCases)
    func serverMadeChatroomId(backend: Backend) throws {
        let (server, s3) = try ImagesFlowTests.start(backend)
        defer { server.stop() }
        for (query, pattern) in Self.types {
            var ids: Set<String> = []
            for _ in 0..<3 {
                let r = try ClientPFlowTests.issue(server, query: query, user: "9")
                #expect(r.status == 200, "\(query): \(r.text)")
                let key = try #require(try JSONValue(parsing: r.body)["key"]?.stringValue)
                let id = try #require(try Self.chatroomId(key, pattern), "\(query) gave \(key)")
                ids.insert(id)
            }
            #expect(ids.count == 3, "\(query): each request gets its own chat-room id")
            // Upload as client P does, confirm: promoted under the same server-made id.
            let ext = query.split(separator: "=").last.map(String.init) ?? "jpg"
            let type = String(query.split(separator: "&")[0].dropFirst("type=".count))
            let key = try ImagesFlowTests.uploadP(
                server, s3, user: "9", type: type, ext: ext, bytes: TestImages.jpeg(width: 10, height: 10))
            let id = try #require(try Self.chatroomId(key, pattern))
            let confirmed = try ImagesFlowTests.request(
                server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(key)"}"#)
            #expect(confirmed.status == 201, "\(query): \(confirmed.text)")
            let record = try JSONValue(parsing: confirmed.body)
            let permanent = try #require(record["key"]?.stringValue)
            #expect(permanent.hasPrefix("chatroom/\(id)/"), "\(permanent)")
            #expect(permanent.contains("/origin/"))
            #expect(record["type"]?.stringValue == type)
            #expect(try ClientPFlowTests.get(s3, key: permanent).0 == 200)
        }
    }

    @Test("a supplied chatroomId is still used, on GET and where the type takes one")
    func suppliedChatroomId() throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        for (query, prefix) in [
            ("type=CHATROOM_PROFILE&ext=jpg&chatroomId=77", "delete/chatroom/77/"),
            ("type=CHAT&ext=jpg&chatroomId=77", "delete/chatroom/77/chat/"),
            ("type=CHAT_PROFILE&ext=jpg&chatroomId=77", "delete/chatroom/77/chat_profile/9/"),
            // Empty means not sent.
            ("type=CHAT&ext=jpg&chatroomId=", "delete/chatroom/"),
            // A type without the segment ignores it.
            ("type=PROFILE&ext=jpg&chatroomId=77", "delete/profile/9/"),
        ] {
            let r = try ClientPFlowTests.issue(server, query: query, user: "9")
            #expect(r.status == 200, "\(query): \(r.text)")
            let key = try JSONValue(parsing: r.body)["key"]?.stringValue ?? ""
            #expect(key.hasPrefix(prefix), "\(query) gave \(key)")
        }
        // A sent chatroomId must still be a number.
        let bad = try ClientPFlowTests.issue(server, query: "type=CHAT&ext=jpg&chatroomId=abc", user: "9")
        #expect(bad.status == 422)
        // Client B's POST takes no chatroomId: a chat-room type gets a server-made one there too.
        let uuid = UUID().uuidString
        let posted = try ClientBFlowTests.post(
            server, #"{"type":"CHAT","contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(posted.status == 200, "\(posted.text)")
        let key = try JSONValue(parsing: posted.body)["key"]?.stringValue ?? ""
        #expect(
            try Self.chatroomId(key, #"^delete/chatroom/(\#(Self.uuid))/chat/"#) != nil
                && key.contains(uuid.lowercased()), "\(key)")
    }

    @Test("a type configured chatroomId: required answers client P's 422 without one")
    func requiredChatroomId() throws {
        let dir = TestEnvironment.tempDir()
        try #"{"types": {"CHAT": {"chatroomId": "required"}, "CHAT_PROFILE": {"requiresChatroomId": true}}}"#.write(
            toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try ServerProcess(environment: env, arguments: ["--config", dir + "/config.json"])
        defer { server.stop() }
        for type in ["CHAT", "CHAT_PROFILE"] {
            let r = try ClientPFlowTests.issue(server, query: "type=\(type)&ext=jpg", user: "9")
            #expect(r.status == 422)
            #expect(
                r.text
                    == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"chatroomId":"chatroomId is required for type \#(type)"}}"#
            )
            let given = try ClientPFlowTests.issue(server, query: "type=\(type)&ext=jpg&chatroomId=5", user: "9")
            #expect(given.status == 200)
            #expect(try JSONValue(parsing: given.body)["key"]?.stringValue?.hasPrefix("delete/chatroom/5/") == true)
            // POST has no chatroomId to give.
            let posted = try ClientBFlowTests.post(
                server, #"{"type":"\#(type)","contentType":"image/jpeg","imageKey":"\#(UUID())"}"#)
            #expect(posted.status == 422)
            #expect(posted.text.contains("requires a chatroomId"), "\(posted.text)")
        }
        // The other chat-room type keeps the default.
        #expect(try ClientPFlowTests.issue(server, query: "type=CHATROOM_PROFILE&ext=jpg", user: "9").status == 200)
    }
}
