import HTTP1
import HTTPServer
import Testing

@testable import App

/// Development mode's user header: a mistyped one is named in a `Warning` instead of silently meaning
/// the default user (`UserHeaderLookalike`, `DevelopmentCallerResolver`, `Response.marked`).
@Suite("User header look-alikes")
struct UserHeaderLookalikeTests {
    static let check = UserHeaderLookalike(userHeader: "X-User-Id")

    @Test(
        "names that resemble X-User-Id",
        arguments: [
            "X-UserId", "X-User", "User-Id", "UserId", "X_User_Id", "x-userid", "X-Usr-Id", "X-Uesr-Id", "X-User-Ids",
        ])
    func resembles(_ name: String) {
        #expect(Self.check.resembles(name))
    }

    @Test(
        "ordinary headers do not",
        arguments: [
            "Host", "User-Agent", "X-Request-Id", "X-Api-Key", "Authorization", "Content-Type", "X-Forwarded-For",
            "Accept", "Cookie", "X-Amz-Date", "Id", "X", "X-Trace-Id",
        ])
    func doesNotResemble(_ name: String) {
        #expect(!Self.check.resembles(name))
    }

    @Test("another configured header: its own variants")
    func otherHeader() {
        let check = UserHeaderLookalike(userHeader: "X-Debug-User")
        #expect(check.resembles("X-DebugUser") && check.resembles("Debug-User") && check.resembles("X-Debug-Usr"))
        #expect(!check.resembles("X-User-Id") && !check.resembles("User-Agent"))
    }

    @Test("one edit apart: added, dropped, changed or swapped, and no more")
    func oneEdit() {
        func edit(_ a: String, _ b: String) -> Bool {
            UserHeaderLookalike.withinOneEdit(Array(a.utf8), Array(b.utf8))
        }
        #expect(edit("xuserid", "xuserid") && edit("xuserid", "xusrid") && edit("xuserid", "xuseridd"))
        #expect(edit("xuserid", "xuserix") && edit("xuserid", "xuesrid") && edit("xuserid", "uxserid"))
        #expect(!edit("xuserid", "xusid") && !edit("xuserid", "xuesrdi") && !edit("xuserid", "userxid"))
    }

    /// A request with `headers`, parsed as the server parses one.
    static func request(_ headers: String) throws -> Request {
        let head = "GET /presigned-url HTTP/1.1\r\nHost: presignd\r\n\(headers)\r\n"
        guard case .complete(let parsed, _) = RequestParser.parseHead(Array(head.utf8)) else {
            throw HeaderError()
        }
        return Request(head: parsed, body: [], pathParameters: [], requestId: "t", peer: "127.0.0.1:1")
    }

    /// The test's request did not parse.
    struct HeaderError: Error {}

    @Test("the resolver: the user header wins; a look-alike alone is the default user with a warning")
    func resolver() throws {
        let resolver = DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1")
        let lookalike = try resolver.resolve(Self.request("X-UserId: 42\r\n")).get()
        #expect(lookalike.userId == "1")
        #expect(
            lookalike.warning
                == "header X-UserId is not the user header X-User-Id (auth.devUserHeader): this request is the default user 1"
        )
        let both = try resolver.resolve(Self.request("X-UserId: 42\r\nx-user-id: 7\r\n")).get()
        #expect(both == Caller(userId: "7"))
        #expect(try resolver.resolve(Self.request("")).get() == Caller(userId: "1"))
        #expect(try resolver.resolve(Self.request("User-Agent: curl/8\r\n")).get().warning == nil)
    }

    @Test("a caller's warning becomes a Warning header on its answer, beside the user id")
    func marked() {
        let plain = Response(status: 200, headers: [("Content-Type", "application/json")]).marked(
            for: Caller(userId: "7"))
        #expect(plain.userId == "7" && plain.headers.map(\.name) == ["Content-Type"])
        let warned = Response(status: 200).marked(for: Caller(userId: "1", warning: "header X-User is not it"))
        #expect(warned.userId == "1")
        #expect(warned.headers.map(\.name) == ["Warning"])
        #expect(warned.headers.first?.value == #"299 presignd "header X-User is not it""#)
    }
}
