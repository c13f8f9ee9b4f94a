import Foundation
import JSON
import TestSupport
import Testing

/// Read URLs across three instances of the real binary on one PostgreSQL and RGW
/// (`scripts/instances.sh`): every instance answers the byte-identical URL for one record within a
/// window (nothing of it depends on the instance), and a record deleted on one instance is 404 on the
/// others at once (each reads the record from the store on every request).
@Suite("Read URLs across instances on one PostgreSQL", .serialized)
struct ReadURLsInstancesTests {
    /// One request as `user` to `port`.
    static func call(_ port: Int, _ method: String, _ path: String, user: String, body: String? = nil) async throws
        -> WireResponse
    {
        try await UppyFlowTests.call(SocketTarget(port: port), method, path, user: user, body: body)
    }

    /// `GET /images/{id}/url` on each of `ports`, in order: the URLs.
    static func urls(_ ports: [Int], id: String, user: String) async throws -> [String] {
        var urls: [String] = []
        for port in ports {
            let r = try await Self.call(port, "GET", "/images/\(id)/url", user: user)
            try #require(r.status == 200, "instance on \(port): \(r.status) \(r.text)")
            urls.append(try #require(try JSONValue(parsing: r.body)["url"]?.stringValue))
        }
        return urls
    }

    @Test("one record's URL is the same on every instance; deleted on one, 404 on the others at once")
    func sameURLAndDeletionEverywhere() async throws {
        let harness = try await InstancesHarness.start(extra: [:])
        defer { harness.stop() }
        let s3 = try TestEnvironment.s3()
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = "ru-\(UUID().uuidString.prefix(8).lowercased())"

        // Upload and confirm on instance 1 (client B's flow).
        let imageKey = UUID().uuidString
        let issued = try await Self.call(
            ports[0], "POST", "/presigned-url", user: user,
            body: #"{"contentType":"image/jpeg","imageKey":"\#(imageKey)"}"#)
        try #require(issued.status == 200, "\(issued.text)")
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue)
        let bytes = TestImages.jpeg(width: 4, height: 3, tail: Array(imageKey.utf8))
        #expect(try await UppyFlowTests.put(s3, url: url, bytes: bytes, contentType: "image/jpeg").0 == 200)
        let confirmed = try await Self.call(
            ports[0], "POST", "/images", user: user, body: #"{"imageKey":"\#(imageKey)"}"#)
        try #require(confirmed.status == 201, "\(confirmed.text)")
        let id = try #require(try JSONValue(parsing: confirmed.body)["id"]?.stringValue)

        // The three instances, then the first again: when the first and the last agree no window
        // boundary passed in between, and then all must agree. (At most one boundary can pass in the
        // few milliseconds of a round, so a second round always settles it.)
        var agreed = false
        for _ in 0..<2 where !agreed {
            let got = try await Self.urls(ports + [ports[0]], id: id, user: user)
            guard got.first == got.last else { continue }
            #expect(Set(got).count == 1, "\(got)")
            agreed = true
            let (host, port) = s3.hostPort
            let target = String(got[0][try #require(got[0].range(of: "\(host):\(port)")).upperBound...])
            let fetched = try await SocketTarget(host: host, port: port).exchange(
                "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
            #expect(fetched.body == bytes)
        }
        #expect(agreed, "two rounds each crossed a window boundary")
        // Through HAProxy's round robin too, and the record's own url.
        let balanced = try await Self.urls([harness.port, harness.port, harness.port], id: id, user: user)
        let record = try await Self.call(ports[2], "GET", "/images/\(id)", user: user)
        let recordURL = try #require(try JSONValue(parsing: record.body)["url"]?.stringValue)
        // Within one window (one X-Amz-Date) one URL, whichever instance answered.
        let byWindow = Dictionary(grouping: balanced + [recordURL]) { url in
            url.range(of: "X-Amz-Date=").map { String(url[$0.upperBound...].prefix(16)) } ?? ""
        }
        #expect(!byWindow.keys.contains(""))
        for (window, urls) in byWindow { #expect(Set(urls).count == 1, "\(window): \(urls)") }

        // Deleted on instance 2: instances 1 and 3 answer 404 on their next request, on every route.
        #expect(try await Self.call(ports[1], "DELETE", "/images/\(id)", user: user).status == 204)
        for port in [ports[0], ports[2]] {
            for path in ["/images/\(id)/url", "/images/\(id)/content", "/images/\(id)"] {
                let r = try await Self.call(port, "GET", path, user: user)
                #expect(r.status == 404, "\(port) \(path): \(r.status) \(r.text)")
            }
            let batch = try await Self.call(port, "POST", "/images/urls", user: user, body: #"{"ids":["\#(id)"]}"#)
            #expect(try JSONValue(parsing: batch.body)["missing"]?.arrayValue?.first?.stringValue == id)
        }
    }
}
