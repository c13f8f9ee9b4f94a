import Crypto
import Foundation
import JSON
import Records
import RecordsTestSupport
import SigV4
import TestSupport
import Testing
import Uploads

/// Uppy Companion's flows across three instances on one PostgreSQL and RGW (`scripts/instances.sh`): a
/// multipart upload created on one instance has its parts signed, listed and completed on the others at
/// once (its intent is stored before the creation is answered, and an instance that has not seen the
/// upload looks it up in the store), through each instance's own port and through HAProxy's round robin;
/// a `params` upload is confirmed on another instance than issued it.
@Suite("Uppy uploads across instances behind HAProxy", .serialized, .heavy(aloneSeconds: 15))
struct InstancesUppyTests {
    static let mib = 1024 * 1024
    /// The parts of every multipart upload here: S3's 5 MiB least but for the last part.
    static let partSizes = [5 * mib, 1 * mib]

    static func start() async throws -> (InstancesHarness, TestEnvironment.S3) {
        (try await InstancesHarness.start(extra: ["PRESIGN_UPPY_ENABLED": "true"]), try TestEnvironment.s3())
    }

    /// One request as `user` on a new connection to `port` (an instance's or HAProxy's).
    static func call(_ port: Int, _ method: String, _ path: String, user: String, body: String? = nil) async throws
        -> WireResponse
    {
        try await UppyFlowTests.call(SocketTarget(port: port), method, path, user: user, body: body)
    }

    /// Storage's status and `Content-Length` of `key`: a HEAD with a URL presigned by the test itself.
    static func head(_ s3: TestEnvironment.S3, key: String) async throws -> (status: Int, size: Int?) {
        let r = try await s3.fetch("HEAD", key: key)
        return (r.status, Int(r.header("Content-Length") ?? ""))
    }

    /// The Uppy routes' answers counted by the instance on `port` (`presignd_http_requests_total` of the
    /// routes under `/s3/`), keyed "METHOD route status".
    static func uppyAnswers(_ port: Int) async throws -> [String: Int] {
        let r = try await SocketTarget(port: port).exchange("GET", "/metrics")
        try #require(r.status == 200)
        var out: [String: Int] = [:]
        for line in r.text.split(separator: "\n") where line.hasPrefix("presignd_http_requests_total{") {
            func label(_ name: String) -> String? {
                guard let s = line.range(of: "\(name)=\"") else { return nil }
                return String(line[s.upperBound...].prefix { $0 != "\"" })
            }
            guard let route = label("route"), route.hasPrefix("/s3/"), let method = label("method"),
                let status = label("status"), let n = Int(line.split(separator: " ").last ?? "")
            else { continue }
            out["\(method) \(route) \(status)"] = n
        }
        return out
    }

    /// What each instance answered on the Uppy routes since `before` (only the counts that grew). The
    /// counters are bumped as an answer is queued, before it is written; still, it waits (at most 10 s)
    /// until the instances' total has grown by `expected`.
    static func answered(since before: [[String: Int]], ports: [Int], expected: Int) async throws -> [[String: Int]] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            var now: [[String: Int]] = []
            for port in ports { now.append(try await uppyAnswers(port)) }
            let deltas = zip(now, before).map { now, before in
                now.reduce(into: [String: Int]()) { d, kv in
                    let grew = kv.value - (before[kv.key] ?? 0)
                    if grew > 0 { d[kv.key] = grew }
                }
            }
            let total = deltas.reduce(0) { $0 + $1.values.reduce(0, +) }
            if total >= expected || Date() >= deadline { return deltas }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The created upload: (key, uploadId) from `POST /s3/multipart`.
    static func create(_ port: Int, user: String) async throws -> (key: String, uploadId: String) {
        let r = try await call(
            port, "POST", "/s3/multipart", user: user,
            body: #"{"filename":"Across.jpg","type":"image/jpeg","metadata":{"name":"Across.jpg"}}"#)
        try #require(r.status == 200, "create: \(r.status) \(r.text)")
        let j = try UppyFlowTests.json(r)
        return (try #require(j["key"]?.stringValue), try #require(j["uploadId"]?.stringValue))
    }

    /// Part `number`'s presigned URL from `GET /s3/multipart/{uploadId}/{partNumber}` on `port`.
    static func signPart(_ port: Int, key: String, uploadId: String, number: Int, user: String) async throws
        -> String
    {
        let q = UppyFlowTests.q
        let r = try await call(port, "GET", "/s3/multipart/\(q(uploadId))/\(number)?key=\(q(key))", user: user)
        try #require(r.status == 200, "sign part \(number): \(r.status) \(r.text)")
        return try #require(try UppyFlowTests.json(r)["url"]?.stringValue)
    }

    /// PUTs part `number` (1-based) of `bytes` to `url`; the part's entry for the completion.
    static func putPart(_ s3: TestEnvironment.S3, url: String, number: Int, bytes: [UInt8]) async throws -> String {
        let start = partSizes.prefix(number - 1).reduce(0, +)
        let (status, etag) = try await UppyFlowTests.put(
            s3, url: url, bytes: Array(bytes[start..<start + partSizes[number - 1]]))
        try #require(status == 200, "PUT of part \(number): \(status)")
        return #"{"PartNumber":\#(number),"ETag":\#(try #require(etag).debugDescription)}"#
    }

    /// `POST /s3/multipart/{uploadId}/complete` on `port` with `parts`; its answer (200 required).
    static func complete(_ port: Int, key: String, uploadId: String, parts: [String], user: String) async throws
        -> JSONValue
    {
        let q = UppyFlowTests.q
        let r = try await call(
            port, "POST", "/s3/multipart/\(q(uploadId))/complete?key=\(q(key))", user: user,
            body: #"{"parts":[\#(parts.joined(separator: ","))]}"#)
        try #require(r.status == 200, "complete: \(r.status) \(r.text)")
        return try UppyFlowTests.json(r)
    }

    @Test("created on instance 1, part 1 signed on 2 and part 2 on 3, listed on 2, completed on 3: recorded")
    func multipartAcrossInstances() async throws {
        let (harness, s3) = try await Self.start()
        defer { harness.stop() }
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = "uppy-\(UUID().uuidString.prefix(8).lowercased())"
        let bytes = try UppyFlowTests.payload(Self.partSizes.reduce(0, +))
        var before: [[String: Int]] = []
        for port in ports { before.append(try await Self.uppyAnswers(port)) }

        // Each step at once after the one before, each on the instance it names: no waiting for any
        // instance to learn of the upload.
        let (key, uploadId) = try await Self.create(ports[0], user: user)
        let url1 = try await Self.signPart(ports[1], key: key, uploadId: uploadId, number: 1, user: user)
        let url2 = try await Self.signPart(ports[2], key: key, uploadId: uploadId, number: 2, user: user)
        let parts = [
            try await Self.putPart(s3, url: url1, number: 1, bytes: bytes),
            try await Self.putPart(s3, url: url2, number: 2, bytes: bytes),
        ]
        let q = UppyFlowTests.q
        let list = try await Self.call(ports[1], "GET", "/s3/multipart/\(q(uploadId))?key=\(q(key))", user: user)
        #expect(list.status == 200, "\(list.text)")
        let listed = try #require(try UppyFlowTests.json(list).arrayValue)
        #expect(listed.map { $0["PartNumber"]?.intValue } == [1, 2])
        #expect(listed.map { $0["Size"]?.intValue } == Self.partSizes)
        let listedParts = listed.map {
            #"{"PartNumber":\#($0["PartNumber"]?.intValue ?? 0),"ETag":\#(($0["ETag"]?.stringValue ?? "").debugDescription)}"#
        }
        #expect(listedParts == parts, "the listed ETags are those RGW answered the PUTs")
        let done = try await Self.complete(ports[2], key: key, uploadId: uploadId, parts: parts, user: user)

        // The completion's answer, as Companion's: the location and key, and the record.
        let finalKey = try #require(done["key"]?.stringValue)
        #expect(done["location"]?.stringValue?.isEmpty == false)
        #expect(done["bucket"]?.stringValue == s3.bucket)
        #expect(done["record"]?["size"]?.intValue == bytes.count)
        #expect(done["record"]?["contentType"]?.stringValue == "image/jpeg")
        let id = try #require(done["record"]?["id"]?.stringValue)
        // The object is whole in RGW.
        let found = try await Self.head(s3, key: finalKey)
        #expect(found.status == 200)
        #expect(found.size == bytes.count)
        // The record is read back on the other instances, as its owner.
        for n in [0, 1] {
            let rec = try await Self.call(ports[n], "GET", "/images/\(id)", user: user)
            #expect(rec.status == 200, "instance \(n): \(rec.text)")
            #expect(try UppyFlowTests.json(rec)["key"]?.stringValue == finalKey, "instance \(n)")
            #expect(try UppyFlowTests.json(rec)["size"]?.intValue == bytes.count, "instance \(n)")
        }
        // In the shared store it is under the upload's pair key `key#uploadId`, the intent's key.
        let store = try RecordStoreFactory.open(url: harness.recordsURL, poolSize: 1, busyTimeoutMs: 5000)
        let stored = try store.record(imageKey: UploadRef.pairKey(key: key, uploadId: uploadId))
        #expect(stored?.id == id)
        #expect(stored?.ownerId == user)
        // A repeated completion on instance 1 answers the same record.
        let again = try await Self.complete(ports[0], key: key, uploadId: uploadId, parts: parts, user: user)
        #expect(again["record"]?["id"]?.stringValue == id)

        // Each step was answered by the instance it was sent to, 200 every time.
        let served = try await Self.answered(since: before, ports: ports, expected: 6)
        #expect(served[0] == ["POST /s3/multipart 200": 1, "POST /s3/multipart/{uploadId}/complete 200": 1])
        #expect(
            served[1] == ["GET /s3/multipart/{uploadId}/{partNumber} 200": 1, "GET /s3/multipart/{uploadId} 200": 1])
        #expect(
            served[2] == [
                "GET /s3/multipart/{uploadId}/{partNumber} 200": 1, "POST /s3/multipart/{uploadId}/complete 200": 1,
            ])
        print("Uppy multipart across instances: created on 1, signed on 2 and 3, completed on 3: \(served)")
    }

    @Test("5 Uppy multipart uploads through HAProxy's round robin: each succeeds, each served by several instances")
    func multipartThroughBalancer() async throws {
        let (harness, s3) = try await Self.start()
        defer { harness.stop() }
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = "uppy-\(UUID().uuidString.prefix(8).lowercased())"
        let bytes = try UppyFlowTests.payload(Self.partSizes.reduce(0, +))
        var spread: [[Int]] = []
        for i in 0..<5 {
            var before: [[String: Int]] = []
            for port in ports { before.append(try await Self.uppyAnswers(port)) }
            // Only HAProxy's port: create, two part URLs, completion (4 requests, 4 connections).
            let (key, uploadId) = try await Self.create(harness.port, user: user)
            let url1 = try await Self.signPart(harness.port, key: key, uploadId: uploadId, number: 1, user: user)
            let url2 = try await Self.signPart(harness.port, key: key, uploadId: uploadId, number: 2, user: user)
            let parts = [
                try await Self.putPart(s3, url: url1, number: 1, bytes: bytes),
                try await Self.putPart(s3, url: url2, number: 2, bytes: bytes),
            ]
            let done = try await Self.complete(harness.port, key: key, uploadId: uploadId, parts: parts, user: user)
            let finalKey = try #require(done["key"]?.stringValue)
            #expect(done["record"]?["size"]?.intValue == bytes.count, "upload \(i)")
            let found = try await Self.head(s3, key: finalKey)
            #expect(found.status == 200 && found.size == bytes.count, "upload \(i): \(found)")

            let served = try await Self.answered(since: before, ports: ports, expected: 4)
            let counts = served.map { $0.values.reduce(0, +) }
            spread.append(counts)
            #expect(counts.reduce(0, +) == 4, "upload \(i): \(served)")
            #expect(served.allSatisfy { $0.keys.allSatisfy { $0.hasSuffix(" 200") } }, "upload \(i): \(served)")
            #expect(counts.filter { $0 > 0 }.count >= 2, "upload \(i) was served by one instance only: \(served)")
        }
        print("Uppy multipart through HAProxy: 5 uploads, Uppy requests per instance for each: \(spread)")
    }

    @Test("params issued on instance 1, the PUT to RGW, confirmed on 2 (again on 3), read back on 3")
    func paramsAcrossInstances() async throws {
        let (harness, s3) = try await Self.start()
        defer { harness.stop() }
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = "uppy-\(UUID().uuidString.prefix(8).lowercased())"
        let r = try await Self.call(ports[0], "GET", "/s3/params?filename=dog.jpg&type=image%2Fjpeg", user: user)
        try #require(r.status == 200, "\(r.text)")
        let j = try UppyFlowTests.json(r)
        #expect(j["method"]?.stringValue == "PUT")
        let key = try #require(j["key"]?.stringValue)
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        let (status, _) = try await UppyFlowTests.put(
            s3, url: try #require(j["url"]?.stringValue), bytes: jpeg, contentType: "image/jpeg")
        #expect(status == 200)
        let confirmed = try await Self.call(ports[1], "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
        #expect(confirmed.status == 201, "\(confirmed.text)")
        let c = try UppyFlowTests.json(confirmed)
        let id = try #require(c["id"]?.stringValue)
        let recordKey = try #require(c["key"]?.stringValue)
        // Confirmed again on a third instance: the same record (200).
        let again = try await Self.call(ports[2], "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
        #expect(again.status == 200, "\(again.text)")
        #expect(try UppyFlowTests.json(again)["id"]?.stringValue == id)
        let rec = try await Self.call(ports[2], "GET", "/images/\(id)", user: user)
        #expect(rec.status == 200, "\(rec.text)")
        #expect(try UppyFlowTests.json(rec)["key"]?.stringValue == recordKey)
        let found = try await Self.head(s3, key: recordKey)
        #expect(found.status == 200 && found.size == jpeg.count, "\(found)")
    }
}
