import HTTPServer
import JSON
import Records
import System
import Uploads

/// The operator's routes of the webhook outbox (docs/webhooks.md), for callers with an API key that has
/// the `admin` scope (as `POST /admin/explain`):
/// - `GET /admin/webhooks?state=failed|pending[&limit=1..1000][&cursor=…]`: deliveries in that state,
///   oldest first, with their events' bodies; `nextCursor` continues the list.
/// - `POST /admin/webhooks/{eventId}/redeliver`: every delivery of the event pending again, due now, its
///   attempts reset (202); 404 `WEBHOOK_EVENT_NOT_FOUND` for an id the outbox does not hold.
/// Served whether or not an endpoint is configured (without one, the outbox is empty).
struct WebhooksAdminService: Sendable {
    /// The list's path.
    static let path = "/admin/webhooks"

    /// The outbox.
    let store: any WebhookOutbox
    /// Admission (the per-address and per-user limits, the caller).
    let gate: Gate
    /// The API keys with the `admin` scope.
    let admins: AdminKeys
    /// The clock (epoch ms).
    let nowMillis: @Sendable () -> Int64

    /// A checked list query.
    struct Listing: Sendable {
        /// The state listed.
        let state: WebhookDelivery.State
        /// At most this many.
        let limit: Int
        /// After this row, when given (the cursor).
        let afterSeq: Int64?
    }

    /// The routes.
    func routes() -> [Route] {
        let list = gate.route(
            .confirm,
            validate: { [self] (_, request) throws(APIError) -> Listing in
                try admins.admit(request, now: nowMillis() / 1000)
                return try Self.listing(request)
            },
            perform: { [self] _, listing throws(APIError) in try self.list(listing) })
        let redeliver = gate.route(
            .confirm,
            validate: { [self] (_, request) throws(APIError) -> String in
                try admins.admit(request, now: nowMillis() / 1000)
                guard let id = request.parameter("eventId"), Self.isEventId(id) else { throw .webhookEventNotFound }
                return id
            },
            perform: { [self] _, id throws(APIError) in try self.redeliver(id) })
        return [
            Route(.GET, Self.path, handler: list),
            Route(.POST, Self.path + "/{eventId}/redeliver", maxBodyBytes: 0, handler: redeliver),
        ]
    }

    /// The query of the list: `state` (required: `failed` or `pending`), `limit` (1...1000, default 100),
    /// `cursor` (the `nextCursor` of the page before).
    static func listing(_ request: Request) throws(APIError) -> Listing {
        guard let items = request.queryItems() else { throw .malformedQuery }
        var state: WebhookDelivery.State?
        var limit = 100
        var afterSeq: Int64?
        var errors = FieldErrors()
        for (name, value) in items {
            switch name {
            case "state":
                if value == "failed" || value == "pending" {
                    state = WebhookDelivery.State(rawValue: value)
                } else {
                    errors.add("state", "state must be failed or pending")
                }
            case "limit":
                if RequestValidation.isNumericId(value), let n = Int(value), (1...1000).contains(n) {
                    limit = n
                } else {
                    errors.add("limit", "limit must be 1...1000")
                }
            case "cursor":
                if RequestValidation.isNumericId(value), value.count <= 18, let seq = Int64(value) {
                    afterSeq = seq
                } else {
                    errors.add("cursor", "invalid cursor")
                }
            default: continue
            }
        }
        if state == nil && !errors.list.contains(where: { $0.field == "state" }) {
            errors.add("state", "state is required: failed or pending")
        }
        guard errors.isEmpty, let state else { throw .validation(errors) }
        return Listing(state: state, limit: limit, afterSeq: afterSeq)
    }

    /// An event id as the outbox writes them: 1-128 of A-Z a-z 0-9 . _ -.
    static func isEventId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128
            && id.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d
                    || c == 0x2e || c == 0x5f
            }
    }

    /// On a worker: one page of deliveries.
    func list(_ listing: Listing) throws(APIError) -> Response {
        let page: [WebhookDelivery]
        do throws(RecordsError) {
            page = try store.webhookDeliveries(
                state: listing.state, limit: listing.limit + 1, afterSeq: listing.afterSeq)
        } catch {
            throw .upload(.store(error))
        }
        let shown = page.prefix(listing.limit)
        var w = JSONWriter(reservingCapacity: 1024 * max(1, shown.count))
        w.beginObject()
        w.key("items")
        w.beginArray()
        for delivery in shown { Self.write(delivery, to: &w) }
        w.endArray()
        w.key("nextCursor")
        if page.count > listing.limit, let last = shown.last { w.string(String(last.seq)) } else { w.null() }
        w.endObject()
        return Response(status: 200, headers: APIError.jsonNoStoreHeaders, body: w.bytes)
    }

    /// On a worker: makes every delivery of `id` due again.
    func redeliver(_ id: String) throws(APIError) -> Response {
        let changed: Int
        do throws(RecordsError) {
            changed = try store.redeliverWebhookEvent(eventId: id, nowMs: nowMillis())
        } catch {
            throw .upload(.store(error))
        }
        guard changed > 0 else { throw .webhookEventNotFound }
        var w = JSONWriter(reservingCapacity: 96)
        w.beginObject()
        w.key("eventId")
        w.string(id)
        w.key("deliveries")
        w.int(changed)
        w.endObject()
        return Response(status: 202, headers: APIError.jsonNoStoreHeaders, body: w.bytes)
    }

    /// One delivery as the list shows it.
    static func write(_ d: WebhookDelivery, to w: inout JSONWriter) {
        w.beginObject()
        w.key("eventId")
        w.string(d.eventId)
        w.key("endpoint")
        w.string(d.endpoint)
        w.key("type")
        w.string(d.type)
        w.key("subject")
        w.string(d.subject)
        w.key("state")
        w.string(d.state.rawValue)
        w.key("attempts")
        w.int(d.attempts)
        w.key("createdAt")
        w.string(ISO8601Timestamp.string(epochMillis: d.createdAtMs))
        w.key("nextAttemptAt")
        if d.state == .pending { w.string(ISO8601Timestamp.string(epochMillis: d.dueAtMs)) } else { w.null() }
        w.key("finishedAt")
        if let finished = d.finishedAtMs { w.string(ISO8601Timestamp.string(epochMillis: finished)) } else { w.null() }
        w.key("lastError")
        if let error = d.lastError { w.string(error) } else { w.null() }
        w.key("payload")
        w.raw(d.body)
        w.endObject()
    }
}
