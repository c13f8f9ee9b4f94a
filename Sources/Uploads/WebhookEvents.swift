import Config
import Crypto
import JSON
import ObjectStore
import Records
import System

/// The outbound webhook events of the lifecycle's changes (docs/webhooks.md), made as `OutboxEvent`s for
/// the store to write in the transaction of the change: `upload.completed` (a record made), `upload.replaced`
/// (a slot names another record), `upload.deleted`, `upload.rejected` (an uploaded object refused and
/// deleted) and `upload.expired` (an intent the janitor removed unconfirmed). Each event goes to the
/// endpoints that want its type; none wants it, no event. Pure but for the clock and the ids it is given.
///
/// The body is `{"type","timestamp","data"}`: for a record, `data` is the record as `GET /images/{id}`
/// shows it, without a read URL, plus `ownerId` (`recordMembers` writes those members: the API's own
/// renderer, passed in by App). An event reporting something that happens once (a record made or deleted,
/// an intent expired, an object refused) has an id derived from it, so writing it again (a commit retried
/// after its acknowledgement was lost, a refusal repeated after a crash) adds nothing.
///
/// A record of a type that scans (docs/scanning.md) is inserted `scanning` with no event: the scanner
/// emits `upload.completed` from its `published` transition (`completed(_:)`) or `upload.rejected` from
/// its `rejected` one (`rejected(_:)`), each in the transaction of the transition.
public struct WebhookEvents: Sendable {
    /// Writes a record's members as the API shows them, without `url` (inside an object the caller opened).
    public typealias RecordMembers = @Sendable (ImageRecord, inout JSONWriter) -> Void

    /// The endpoints and the types each wants.
    private let endpoints: [WebhookEndpointConfig]
    /// The record's members.
    private let recordMembers: RecordMembers
    /// The clock (the events' time) and the ids of events that happen more than once.
    private let env: UploadEnvironment

    /// Events for `endpoints`, with records written by `recordMembers`, on `env`'s clock and ids.
    public init(endpoints: [WebhookEndpointConfig], recordMembers: @escaping RecordMembers, env: UploadEnvironment) {
        self.endpoints = endpoints
        self.recordMembers = recordMembers
        self.env = env
    }

    /// No endpoint: no event.
    public static let off = WebhookEvents(
        endpoints: [], recordMembers: { _, _ in },
        env: UploadEnvironment(nowMillis: { 0 }, newUUID: { "" }))

    /// True when some endpoint wants some event.
    public var isOn: Bool { !endpoints.isEmpty }

    /// `upload.completed` of `record`, made now (its id: the record's).
    public func completed(_ record: ImageRecord) -> [OutboxEvent] {
        event(.completed, id: Self.derivedId(.completed, at: record.createdAtMs, record.id), subject: record.imageKey) {
            w in
            writeRecord(record, to: &w)
        }
    }

    /// `upload.deleted` of `record` (its id: the record's; a record is deleted once).
    public func deleted(_ record: ImageRecord) -> [OutboxEvent] {
        event(.deleted, id: Self.derivedId(.deleted, at: record.createdAtMs, record.id), subject: record.imageKey) {
            w in
            writeRecord(record, to: &w)
        }
    }

    /// The events of a slot filled (`RecordStore.fillSlot`): `upload.completed` when its record was
    /// inserted by the fill, `upload.replaced` (the new record, `slot` and `previousId`), and
    /// `upload.deleted` of the previous record when the fill deleted it. A fill repeated changes nothing
    /// and makes none, so `upload.replaced` has a fresh id (time-ordered, version 7).
    public func filled(_ fill: SlotFill) -> [OutboxEvent] {
        var events = fill.inserted ? completed(fill.record) : []
        let fresh = env.newUUID()
        let id = UUIDv7.stamping(fresh, millis: env.nowMillis()) ?? fresh
        events += event(.replaced, id: id, subject: fill.record.imageKey) { w in
            writeRecord(fill.record, to: &w)
            w.key("slot")
            w.string(fill.slot)
            w.key("previousId")
            if let previous = fill.previous { w.string(previous.id) } else { w.null() }
        }
        if fill.previousDeleted, let previous = fill.previous { events += deleted(previous) }
        return events
    }

    /// `upload.rejected` of the uploaded object of `intent` found at `key` as `info` says, refused for
    /// `reason` (a stable code) and `message` (its id: the intent's and the object's ETag).
    public func rejected(_ intent: UploadIntent, key: String, info: ObjectInfo, reason: String, message: String)
        -> [OutboxEvent]
    {
        let id = Self.derivedId(
            .rejected, at: intent.createdAtMs, intent.imageKey, String(intent.createdAtMs), info.etag, reason)
        return event(.rejected, id: id, subject: intent.imageKey) { w in
            writeIntent(intent, key: key, to: &w)
            w.key("size")
            w.int(info.size)
            w.key("contentType")
            if let type = info.contentType { w.string(type) } else { w.null() }
            w.key("reason")
            w.string(reason)
            w.key("message")
            w.string(message)
        }
    }

    /// `upload.rejected` of `record`, refused by its scan (`MALWARE_FOUND`, `TOO_LARGE_TO_SCAN`): the
    /// record as it shows now (state `rejected`), with `reason` and `message` (the signature's name); its
    /// id: the record's and the reason (a record is rejected once).
    public func rejected(_ record: ImageRecord) -> [OutboxEvent] {
        let reason = record.rejectionReason ?? ""
        return event(
            .rejected, id: Self.derivedId(.rejected, at: record.createdAtMs, record.id, reason),
            subject: record.imageKey
        ) { w in
            writeRecord(record, to: &w)
            w.key("reason")
            w.string(reason)
            w.key("message")
            w.string(record.rejectionDetail ?? "")
        }
    }

    /// `upload.expired` of `intent`, removed unconfirmed by the janitor (`objectDeleted`: its upload was
    /// deleted from storage, `records.deleteUnconfirmedObjects`); its id: the intent's.
    public func expired(_ intent: UploadIntent, objectDeleted: Bool) -> [OutboxEvent] {
        event(
            .expired, id: Self.derivedId(.expired, at: intent.expiresAtMs, intent.imageKey, String(intent.createdAtMs)),
            subject: intent.imageKey
        ) { w in
            writeIntent(intent, key: intent.objectKey, to: &w)
            w.key("expiredAt")
            w.string(ISO8601Timestamp.string(epochMillis: intent.expiresAtMs))
            w.key("objectDeleted")
            w.bool(objectDeleted)
        }
    }

    /// One event of `type` for the endpoints that want it, `data` written by `body`; none when none wants it.
    private func event(
        _ type: WebhookEventType, id: String, subject: String, _ body: (inout JSONWriter) -> Void
    ) -> [OutboxEvent] {
        let wanting = endpoints.filter { $0.wants(type) }.map(\.name)
        guard !wanting.isEmpty else { return [] }
        let now = env.nowMillis()
        var w = JSONWriter(reservingCapacity: 768)
        w.beginObject()
        w.key("type")
        w.string(type.rawValue)
        w.key("timestamp")
        w.string(ISO8601Timestamp.string(epochMillis: now))
        w.key("data")
        w.beginObject()
        body(&w)
        w.endObject()
        w.endObject()
        return [
            OutboxEvent(
                id: id, type: type.rawValue, subject: subject, body: w.bytes, createdAtMs: now, endpoints: wanting)
        ]
    }

    /// The record's members and `ownerId`.
    private func writeRecord(_ record: ImageRecord, to w: inout JSONWriter) {
        recordMembers(record, &w)
        w.key("ownerId")
        w.string(record.ownerId)
    }

    /// An intent's key, owner, type and object key.
    private func writeIntent(_ intent: UploadIntent, key: String, to w: inout JSONWriter) {
        w.key("imageKey")
        w.string(intent.imageKey)
        w.key("ownerId")
        w.string(intent.ownerId)
        w.key("type")
        w.string(intent.type)
        w.key("key")
        w.string(key)
    }

    /// The id of the event of `type` about `parts` that happened at `millis`: a UUID (version 8, RFC 9562)
    /// whose first 48 bits are `millis` (big-endian, as in version 7) and whose other bits are the SHA-256 of
    /// the type and `parts`, so the same happening always has the same id and a new event's id sorts after
    /// earlier ones: the outbox's unique index takes it at its end instead of a random page per event.
    static func derivedId(_ type: WebhookEventType, at millis: Int64, _ parts: String...) -> String {
        var name = Array(type.rawValue.utf8)
        for part in parts {
            name.append(0)
            name.append(contentsOf: part.utf8)
        }
        var bytes = Array(SHA256.hash(name).bytes.prefix(16))
        let time = UInt64(clamping: max(0, millis))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: time >> (40 - 8 * UInt64(index))) }
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                out[position] = digits[Int(byte >> 4)]
                out[position + 1] = digits[Int(byte & 0xf)]
                position += 2
            }
            return 36
        }
    }
}
