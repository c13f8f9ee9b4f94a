/// One outbound webhook event (schema version 12), written to the outbox in the transaction of the change
/// it reports and delivered afterwards to each endpoint that wants it (docs/webhooks.md).
///
/// The outbox keeps one delivery row per endpoint; a second write of an event id an endpoint already has
/// changes nothing, so an id derived from what the event reports (a record's id) makes a retried write
/// (an insert whose acknowledgement was lost) harmless.
public struct OutboxEvent: Sendable, Equatable {
    /// The event's id: the `webhook-id` of every delivery and attempt, what a receiver dedups on.
    public var id: String
    /// `upload.completed`, `upload.replaced`, `upload.deleted`, `upload.rejected`, `upload.expired`.
    public var type: String
    /// What the event is about (an image key): the events of one subject are delivered to an endpoint in
    /// the order they were written.
    public var subject: String
    /// The request body, sent byte for byte on every attempt.
    public var body: [UInt8]
    /// When it happened (epoch ms).
    public var createdAtMs: Int64
    /// The endpoints that want it (one delivery row each); none: nothing is written.
    public var endpoints: [String]

    /// An event from its fields.
    public init(id: String, type: String, subject: String, body: [UInt8], createdAtMs: Int64, endpoints: [String]) {
        self.id = id
        self.type = type
        self.subject = subject
        self.body = body
        self.createdAtMs = createdAtMs
        self.endpoints = endpoints
    }
}
