import Crypto
import Foundation
import JSON
import Synchronization
import TestSupport

/// A webhook receiver for the tests: an HTTP/1.1 server on 127.0.0.1 that checks every request's Standard
/// Webhooks signature as a receiver would (HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with
/// the secret's key, base64, any of the space-separated `v1,` signatures), counts deliveries by
/// `webhook-id`, notes two deliveries of one id in flight at once, and answers what `reply` says (200
/// unless told). It can go down and come back on the same port. Every delivery it received is kept for
/// the reference library's check (`verifyWithReference`, `scripts/webhooks_verify.py`).
final class WebhookReceiver: Sendable {
    /// One request as received.
    struct Delivery: Sendable {
        let id: String
        let timestamp: String
        let signature: String
        let body: [UInt8]
        /// The signature matched.
        let verified: Bool
        /// `type` of the body.
        let type: String
        /// The body's `data`.
        let data: JSONValue?
        /// The status answered.
        let status: Int
    }

    /// What is shared by the connection threads.
    private struct State {
        var deliveries: [Delivery] = []
        var inFlight: [String: Int] = [:]
        var overlaps: [String] = []
        var listener: LoopbackListener?
    }

    /// The secret's key bytes.
    private let key: [UInt8]
    /// The secret as configured (`whsec_…`).
    let secret: String
    /// The port (kept across `down()` and `up()`).
    let port: Int
    /// Holds `port` for the receiver's life, so nothing else takes it while the receiver is down.
    private let hold: ClosedPort
    /// The status of the `n`th request (0-based, over all) with id `id`, before it is answered; nil: 200.
    private let reply: @Sendable (_ n: Int, _ id: String) -> Int?
    /// How long each answer waits (to let overlapping deliveries show).
    private let holdMs: Int
    private let state = Mutex(State())

    /// A receiver on a free port with a new random secret (or `secret`).
    init(
        secret: String? = nil, holdMs: Int = 0,
        reply: @escaping @Sendable (_ n: Int, _ id: String) -> Int? = { _, _ in nil }
    ) throws {
        let text = secret ?? "whsec_" + Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        self.secret = text
        key = Base64.decode(String(text.dropFirst(6))) ?? []
        self.reply = reply
        self.holdMs = holdMs
        hold = try ClosedPort()
        port = hold.port
        try up()
    }

    /// The URL to configure.
    var url: String { "http://127.0.0.1:\(port)/webhooks" }

    /// The settings of a server delivering here: this URL and secret, a short backoff, many attempts.
    var settings: [String: String] {
        [
            "PRESIGN_WEBHOOKS_URL": url, "PRESIGN_WEBHOOKS_SECRET": secret, "PRESIGN_WEBHOOKS_BACKOFF_BASE_MS": "50",
            "PRESIGN_WEBHOOKS_BACKOFF_MAX_MS": "500", "PRESIGN_WEBHOOKS_MAX_ATTEMPTS": "1000",
            "PRESIGN_WEBHOOKS_POLL_INTERVAL_MS": "20", "PRESIGN_WEBHOOKS_TIMEOUT_MS": "3000",
        ]
    }

    /// Starts listening (again) on `port`.
    func up() throws {
        let listener = try LoopbackListener(port: port) { [self] connection in serve(connection) }
        state.withLock { $0.listener = listener }
    }

    /// Stops listening and drops open connections: deliveries meet a refused connection until `up()`.
    func down() {
        let listener = state.withLock { state -> LoopbackListener? in
            defer { state.listener = nil }
            return state.listener
        }
        listener?.stop()
    }

    /// Every delivery so far, in arrival order.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// Ids delivered while another delivery of the same id was in flight.
    var overlaps: [String] { state.withLock { $0.overlaps } }

    /// The distinct events received (the first delivery of each id answered 2xx), by id.
    var events: [String: Delivery] {
        var byId: [String: Delivery] = [:]
        for d in deliveries where (200..<300).contains(d.status) && byId[d.id] == nil { byId[d.id] = d }
        return byId
    }

    /// The distinct events of `type` received.
    func events(ofType type: String) -> [Delivery] { events.values.filter { $0.type == type } }

    /// Requests that carried `id`.
    func attempts(of id: String) -> Int { deliveries.filter { $0.id == id }.count }

    /// Serves one connection's requests.
    private func serve(_ connection: LoopbackConnection) {
        while let (head, body) = connection.readRequest() {
            let headers = Self.headers(head)
            let id = headers["webhook-id"] ?? ""
            let n = state.withLock { state -> Int in
                state.inFlight[id, default: 0] += 1
                if state.inFlight[id, default: 0] > 1 { state.overlaps.append(id) }
                return state.deliveries.count
            }
            if holdMs > 0 { usleep(useconds_t(holdMs * 1000)) }
            let status = reply(n, id) ?? 200
            let timestamp = headers["webhook-timestamp"] ?? ""
            let signature = headers["webhook-signature"] ?? ""
            let parsed = try? JSONValue(parsing: body)
            let delivery = Delivery(
                id: id, timestamp: timestamp, signature: signature, body: body,
                verified: verify(id: id, timestamp: timestamp, signature: signature, body: body),
                type: parsed?["type"]?.stringValue ?? "", data: parsed?["data"], status: status)
            state.withLock { state in
                state.deliveries.append(delivery)
                state.inFlight[id, default: 1] -= 1
            }
            guard connection.send("HTTP/1.1 \(status) Receiver\r\nContent-Length: 0\r\n\r\n") else { return }
        }
    }

    /// The Standard Webhooks check of one request.
    func verify(id: String, timestamp: String, signature: String, body: [UInt8]) -> Bool {
        guard !key.isEmpty, !id.isEmpty, Int64(timestamp) != nil else { return false }
        let expected =
            "v1," + Base64.encode(HMACKey(key: key).authenticate(Array("\(id).\(timestamp).".utf8) + body).bytes)
        return signature.split(separator: " ").contains { String($0) == expected }
    }

    /// The header fields of a request head, names lower-cased.
    static func headers(_ head: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// What the reference library says of the deliveries.
    struct ReferenceCheck: Codable, Sendable {
        /// The library's version.
        let library: String
        /// Deliveries `Webhook.verify` (or, past its five-minute window, `Webhook.sign`) accepted.
        let verified: Int
        /// Ids of deliveries it refused.
        let refused: [String]
        /// Ids of deliveries whose tampered body, id or old timestamp it accepted.
        let tamperedAccepted: [String]
    }

    /// Checks every delivery received with the Standard Webhooks reference library (PyPI's
    /// `standardwebhooks`, `scripts/webhooks_verify.py`), and that a tampered body, another id and a
    /// timestamp from the past each fail its verification.
    func verifyWithReference() throws -> ReferenceCheck {
        struct Input: Codable {
            struct Item: Codable {
                let id: String
                let timestamp: String
                let signature: String
                let body: String
            }
            let secret: String
            let deliveries: [Item]
        }
        let items = deliveries.map {
            Input.Item(id: $0.id, timestamp: $0.timestamp, signature: $0.signature, body: Base64.encode($0.body))
        }
        return try PythonScript.run("webhooks_verify.py", input: Input(secret: secret, deliveries: items))
    }
}
