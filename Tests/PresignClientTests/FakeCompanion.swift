import Foundation

/// A loopback fake of the multipart routes (Uppy Companion's shapes, as presignd serves them) and of
/// the storage behind them, for the uploader's unit tests. Parts are kept in memory; `putFault` can
/// answer a part's PUT instead of storing it.
final class FakeCompanion: @unchecked Sendable {
    struct Upload {
        var key: String
        var parts: [Int: [UInt8]] = [:]
        var completed: [UInt8]?
    }

    private let lock = NSLock()
    private var uploads: [String: Upload] = [:]
    private var nextId = 0
    private(set) var server: LoopbackServer!
    /// Requests seen: method and target, in order.
    private(set) var log: [(String, String)] = []
    private var putAttempts: [Int: Int] = [:]
    private var inFlight = 0
    private(set) var maxInFlight = 0
    /// Given (part number, attempt from 1), an answer instead of storing the part.
    var putFault: @Sendable (Int, Int) -> LoopbackServer.Response? = { _, _ in nil }
    /// Held before answering a PUT (for concurrency and cancellation tests).
    var putDelay: @Sendable () -> Void = {}
    /// Whether GET /s3/multipart/{id} answers 404 with the restart code.
    var listSaysGone = false

    init() throws {
        server = try LoopbackServer { [unowned self] r in self.handle(r) }
    }

    var url: URL { server.url }

    func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Creates an upload directly (as a previous run would have).
    func makeUpload(key: String) -> String {
        withLock {
            nextId += 1
            let id = "up\(nextId)"
            uploads[id] = Upload(key: key)
            return id
        }
    }

    func storePart(_ id: String, _ n: Int, _ bytes: [UInt8]) { withLock { uploads[id]?.parts[n] = bytes } }
    func removeUpload(_ id: String) { _ = withLock { uploads.removeValue(forKey: id) } }
    func upload(_ id: String) -> Upload? { withLock { uploads[id] } }
    func completedObjects() -> [String: [UInt8]] {
        withLock {
            var out: [String: [UInt8]] = [:]
            for u in uploads.values { if let c = u.completed { out[u.key] = c } }
            return out
        }
    }
    func count(_ method: String, prefix: String) -> Int {
        withLock { log.filter { $0.0 == method && $0.1.hasPrefix(prefix) }.count }
    }

    static func etag(_ bytes: [UInt8]) -> String {
        // FNV-1a over 64-bit words, then the tail's bytes: a word per step keeps it cheap in the debug build.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBytes { raw in
            var i = 0
            while i + 8 <= raw.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01b3
                i += 8
            }
            while i < raw.count {
                h = (h ^ UInt64(raw[i])) &* 0x100_0000_01b3
                i += 1
            }
        }
        return "\"\(String(h, radix: 16))\""
    }

    private func handle(_ r: LoopbackServer.Request) -> LoopbackServer.Response {
        withLock { log.append((r.method, r.target)) }
        let segments = r.path.split(separator: "/").map(String.init)
        if r.method == "PUT", segments.first == "bucket" { return put(r) }
        guard segments.count >= 2, segments[0] == "s3", segments[1] == "multipart" else {
            return .json(404, #"{"error":"no route"}"#)
        }
        if r.method == "POST" && segments.count == 2 {
            let body = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any]
            guard let name = body?["filename"] as? String, body?["type"] is String else {
                return .json(400, #"{"error":"filename and type required"}"#)
            }
            let key = "tmp/\(UUID().uuidString.lowercased())_\(name)"
            let id = makeUpload(key: key)
            return .json(200, #"{"key":"\#(key)","uploadId":"\#(id)","bucket":"bucket"}"#)
        }
        let id = segments.count > 2 ? segments[2] : ""
        let key = r.query("key")?.removingPercentEncoding ?? ""
        guard let upload = upload(id), upload.key == key else {
            return .json(404, #"{"error":"no such upload","code":"NO_SUCH_UPLOAD"}"#)
        }
        switch (r.method, segments.count) {
        case ("GET", 4) where segments[3] == "batch":
            let numbers = (r.query("partNumbers") ?? "").removingPercentEncoding!.split(separator: ",")
            let urls = numbers.map { #""\#($0)":"\#(partURL(id, key, Int($0)!))""# }.joined(separator: ",")
            return .json(200, #"{"presignedUrls":{\#(urls)}}"#)
        case ("GET", 4):
            guard let n = Int(segments[3]), n >= 1 else { return .json(400, #"{"error":"bad part"}"#) }
            return .json(200, #"{"url":"\#(partURL(id, key, n))","expires":300}"#)
        case ("GET", 3):
            if listSaysGone { return .json(404, #"{"error":"gone","code":"NO_SUCH_UPLOAD"}"#) }
            let parts = upload.parts.sorted { $0.key < $1.key }.map {
                #"{"PartNumber":\#($0.key),"ETag":\#(Self.json(Self.etag($0.value))),"Size":\#($0.value.count),"LastModified":"2026-01-01T00:00:00.000Z"}"#
            }
            return .json(200, "[" + parts.joined(separator: ",") + "]")
        case ("POST", 4) where segments[3] == "complete":
            let body = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any]
            guard let list = body?["parts"] as? [[String: Any]] else { return .json(400, #"{"error":"parts"}"#) }
            var whole: [UInt8] = []
            var last = 0
            for p in list {
                guard let n = p["PartNumber"] as? Int, let e = p["ETag"] as? String, n > last,
                    let bytes = upload.parts[n], Self.etag(bytes) == e
                else { return .json(400, #"{"error":"InvalidPart"}"#) }
                last = n
                whole += bytes
            }
            withLock { uploads[id]?.completed = whole }
            return .json(200, #"{"location":"http://store/bucket/\#(key)","key":"\#(key)","bucket":"bucket"}"#)
        case ("DELETE", 3):
            removeUpload(id)
            return .json(200, "{}")
        default:
            return .json(404, #"{"error":"no route"}"#)
        }
    }

    static func json(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [s]), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    /// A part URL with an encoded credential, as a real presigned URL has.
    private func partURL(_ id: String, _ key: String, _ n: Int) -> String {
        "\(url.absoluteString)/bucket/\(key)?partNumber=\(n)&uploadId=\(id)&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request"
    }

    private func put(_ r: LoopbackServer.Request) -> LoopbackServer.Response {
        guard let n = Int(r.query("partNumber") ?? ""), let id = r.query("uploadId") else {
            return .xmlError(400, "InvalidRequest")
        }
        let attempt: Int = withLock {
            putAttempts[n, default: 0] += 1
            inFlight += 1
            maxInFlight = max(maxInFlight, inFlight)
            return putAttempts[n]!
        }
        defer { withLock { inFlight -= 1 } }
        putDelay()
        if let fault = putFault(n, attempt) { return fault }
        guard upload(id) != nil else { return .xmlError(404, "NoSuchUpload") }
        storePart(id, n, r.body)
        return LoopbackServer.Response(status: 200, headers: ["ETag": Self.etag(r.body)])
    }

    func attempts(_ n: Int) -> Int { withLock { putAttempts[n] ?? 0 } }
}
