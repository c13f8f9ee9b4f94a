import AppTestSupport
import Crypto
import Foundation
import JSON
import SigV4
import TestSupport
import Testing

/// Client P's flow, end to end: the application in process and a real Ceph RGW.
@Suite("Client P: GET /presigned-url against RGW", .serialized)
struct ClientPFlowTests {
    /// Does what client P's iOS code does with the URL: split at `?`, split pairs on `=`, keep the six
    /// parameters, rebuild the query in its fixed order. Returns the request target to send.
    static func rebuildLikeClientP(_ url: String) -> (path: String, query: String)? {
        guard let q = url.firstIndex(of: "?") else { return nil }
        let base = String(url[..<q])
        let pairs = url[url.index(after: q)...].split(separator: "&").map { $0.split(separator: "=", maxSplits: 1) }
        var dict: [String: String] = [:]
        for p in pairs where p.count == 2 { dict[String(p[0])] = String(p[1]) }
        let order = [
            "X-Amz-Algorithm", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Expires",
            "X-Amz-Signature",
        ]
        var parts: [String] = []
        for k in order {
            guard let v = dict[k] else { return nil }
            parts.append("\(k)=\(v)")
        }
        guard let schemeEnd = base.range(of: "://") else { return nil }
        let afterScheme = base[schemeEnd.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
        return (String(afterScheme[slash...]), parts.joined(separator: "&"))
    }

    /// PUTs `body` to RGW at `target` (a presigned URL's path and query), with `Host` the endpoint's or
    /// `hostHeader`; RGW's status.
    static func put(
        _ s3: TestEnvironment.S3, target: String, contentType: String, body: [UInt8], extraHeaders: String = "",
        hostHeader: String? = nil
    ) async throws -> Int {
        let (host, port) = s3.hostPort
        var req =
            "PUT \(target) HTTP/1.1\r\nHost: \(hostHeader ?? "\(host):\(port)")\r\nContent-Type: \(contentType)\r\n"
        req += extraHeaders
        req += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return try await SocketTarget(host: host, port: port).exchange(Array(req.utf8) + body).status
    }

    /// Reads an object back with a GET URL presigned by the test itself: RGW's status and body.
    static func get(_ s3: TestEnvironment.S3, key: String) async throws -> (Int, [UInt8]) {
        let r = try await s3.fetch(key: key)
        return (r.status, r.body)
    }

    static func issue(_ server: some HTTPTarget, query: String, user: String = "42") async throws -> WireResponse {
        try await server.exchange(
            "GET", "/presigned-url?\(query)", host: "localhost", headers: "X-User-Id: \(user)\r\n")
    }

    @Test("a PROFILE png URL, rebuilt as client P does and PUT as image/jpeg, uploads and reads back")
    func uploadAndReadBack() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let r = try await Self.issue(server, query: "type=PROFILE&ext=png")
        #expect(r.status == 200)
        #expect(r.header("Cache-Control") == "no-store")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let key = try #require(json["key"]?.stringValue)
        #expect(key.hasPrefix("delete/profile/42/"))
        #expect(key.hasSuffix(".png"))
        #expect(json["method"]?.stringValue == "PUT")
        #expect(json["expiresAt"]?.stringValue?.hasSuffix("Z") == true)
        // The six parameters in client P's order, nothing else, Credential's / as %2F, no raw = in values.
        let query = String(url[url.index(after: url.firstIndex(of: "?")!)...])
        let names = query.split(separator: "&").map { String($0.split(separator: "=")[0]) }
        #expect(
            names == [
                "X-Amz-Algorithm", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Expires",
                "X-Amz-Signature",
            ])
        #expect(query.contains("X-Amz-SignedHeaders=host&"))
        #expect(query.contains("X-Amz-Expires=600&"))
        #expect(query.contains("%2F"))
        #expect(query.split(separator: "&").allSatisfy { $0.filter { $0 == "=" }.count == 1 })
        // Path-style: the key is the path minus its first segment (the bucket).
        let rebuilt = try #require(Self.rebuildLikeClientP(url))
        #expect(rebuilt.path == "/\(s3.bucket)/\(key)")

        let bytes = TestImages.png(width: 30, height: 20, tail: Array("\(UUID())".utf8))
        #expect(
            try await Self.put(s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: bytes)
                == 200)
        let (status, body) = try await Self.get(s3, key: key)
        #expect(status == 200)
        #expect(body == bytes)
    }

    @Test("RGW refuses a tampered signature, a URL used for another key, and an expired URL")
    func refusals() async throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        // A config file with a 1-second expiry for PROFILE, to see an expired URL refused.
        let config = """
            {"types": {"PROFILE": {"extensions": ["jpg"], "contentTypes": ["image/jpeg"],
              "keyTemplate": "delete/profile/{userId}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "profile/{userId}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 1048576, "expiresSeconds": 1, "requiresChatroomId": false},
              "FEED": {"extensions": ["jpg"], "contentTypes": ["image/jpeg"],
              "keyTemplate": "delete/feed/{uuid}/{uuid}_{epochMillis}.{ext}", "permanentKeyTemplate": "",
              "maxBytes": 1048576, "expiresSeconds": 600, "requiresChatroomId": false},
              "IMAGE": {"extensions": [], "contentTypes": ["image/jpeg"], "keyTemplate": "{imageKey}",
              "permanentKeyTemplate": "", "maxBytes": 1048576, "expiresSeconds": 600, "requiresChatroomId": false}}}
            """
        try config.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env, arguments: ["--config", dir + "/config.json"])
        defer { server.stop() }
        let body = Array("x".utf8)

        // Tampered signature.
        let feed = try JSONValue(parsing: await Self.issue(server, query: "type=FEED&ext=jpg").body)
        let feedURL = try #require(feed["presignedUrl"]?.stringValue)
        var rebuilt = try #require(Self.rebuildLikeClientP(feedURL))
        let sig = rebuilt.query.suffix(64)
        let flipped = String(sig.first == "0" ? "1" : "0") + sig.dropFirst()
        let tampered = rebuilt.query.dropLast(64) + flipped
        #expect(
            try await Self.put(s3, target: rebuilt.path + "?" + tampered, contentType: "image/jpeg", body: body) == 403)

        // The same signature used for another key.
        let otherPath = rebuilt.path.replacingOccurrences(of: "delete/feed/", with: "delete/feed/x")
        #expect(
            try await Self.put(s3, target: otherPath + "?" + rebuilt.query, contentType: "image/jpeg", body: body)
                == 403)
        // ...while the genuine one works.
        #expect(
            try await Self.put(s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: body)
                == 200)

        // Expired: a 1-second URL used after 2 seconds.
        let profile = try JSONValue(parsing: await Self.issue(server, query: "type=PROFILE&ext=jpg").body)
        let profileURL = try #require(profile["presignedUrl"]?.stringValue)
        rebuilt = try #require(Self.rebuildLikeClientP(profileURL))
        #expect(rebuilt.query.contains("X-Amz-Expires=1&"))
        // Wait for the event itself: storage's own clock (its Date header) past X-Amz-Date + 1 s.
        let signedAt = try #require(
            rebuilt.query.split(separator: "&").first { $0.hasPrefix("X-Amz-Date=") }
                .flatMap { Self.amzDate(String($0.dropFirst("X-Amz-Date=".count))) })
        var storageNow = try await Self.storageClock(s3)
        for _ in 0..<300 where storageNow.map({ $0 <= signedAt + 1 }) ?? true {
            try await Task.sleep(for: .milliseconds(20))
            storageNow = try await Self.storageClock(s3)
        }
        let now = try #require(storageNow, "RGW sent a Date header")
        #expect(now > signedAt + 1, "RGW's clock passed the URL's expiry")
        #expect(
            try await Self.put(s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: body)
                == 403)
    }

    /// Seconds since the epoch of an `X-Amz-Date` (`20260102T030405Z`).
    static func amzDate(_ text: String) -> Int64? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    /// RGW's clock, in whole seconds, from the `Date` header of an anonymous request to it.
    static func storageClock(_ s3: TestEnvironment.S3) async throws -> Int64? {
        let r = try await SocketTarget(host: s3.hostPort.0, port: s3.hostPort.1).exchange(
            "GET / HTTP/1.1\r\nHost: \(s3.hostPort.0)\r\nConnection: close\r\n\r\n")
        guard let date = r.header("Date") else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: date).map { Int64($0.timeIntervalSince1970) }
    }

    @Test(
        "validation errors are 422 in client P's shape",
        arguments: [
            ("ext=jpg", "type"),
            ("type=AVATAR&ext=jpg", "type"),
            ("type=PROFILE", "ext"),
            ("type=PROFILE&ext=gif", "ext"),
            ("type=CHAT&ext=jpg&chatroomId=12a", "chatroomId"),
            ("type=CHAT&ext=jpg&chatroomId=..%2F..", "chatroomId"),
            // CHAT and CHAT_PROFILE need one, as client P's own server requires (mission.md).
            ("type=CHAT&ext=jpg", "chatroomId"),
            ("type=CHAT_PROFILE&ext=jpg&chatroomId=", "chatroomId"),
        ])
    func validation(query: String, field: String) async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let r = try await Self.issue(server, query: query)
        #expect(r.status == 422)
        let json = try JSONValue(parsing: r.body)
        #expect(json["code"]?.stringValue == "4220")
        #expect(json["message"]?.stringValue == "UNPROCESSABLE_CONTENT")
        #expect(json["fieldErrors"]?[field]?.stringValue != nil, "fieldErrors.\(field) in \(r.text)")
    }

    @Test("the key layouts of client P's five types, and the /v1/storage alias")
    func keyLayouts() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let cases: [(String, String)] = [
            ("type=PROFILE&ext=jpg", #"^delete/profile/7/[0-9a-f-]{36}_\d{13}\.jpg$"#),
            ("type=FEED&ext=jpeg", #"^delete/feed/[0-9a-f-]{36}/[0-9a-f-]{36}_\d{13}\.jpeg$"#),
            ("type=CHATROOM_PROFILE&ext=png&chatroomId=5", #"^delete/chatroom/5/[0-9a-f-]{36}_\d{13}\.png$"#),
            ("type=CHAT&ext=jpg&chatroomId=5", #"^delete/chatroom/5/chat/[0-9a-f-]{36}/[0-9a-f-]{36}_\d{13}\.jpg$"#),
            (
                "type=CHAT_PROFILE&ext=jpg&chatroomId=5",
                #"^delete/chatroom/5/chat_profile/7/[0-9a-f-]{36}_\d{13}\.jpg$"#
            ),
        ]
        for (q, pattern) in cases {
            let r = try await Self.issue(server, query: q, user: "7")
            #expect(r.status == 200, "\(q): \(r.text)")
            let key = try JSONValue(parsing: r.body)["key"]?.stringValue ?? ""
            #expect(key.range(of: pattern, options: .regularExpression) != nil, "\(q) gave \(key)")
        }
        #expect(try await server.exchange("GET", "/v1/storage/presigned-url?type=PROFILE&ext=jpg").status == 200)
    }
}
