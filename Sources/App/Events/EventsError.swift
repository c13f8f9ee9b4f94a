import Records
import StoreEvents

/// What the events routes refuse or fail with, typed: the delivery itself (`StoreEventsError`: not JSON,
/// too large, unauthenticated, a signing certificate that cannot be had), the inbox (the records store),
/// or an SNS subscription that could not be confirmed. `EventsPresenter` renders each.
enum EventsError: Error, Sendable, Equatable {
    /// The delivery: 400, 413, 401 or 503.
    case delivery(StoreEventsError)
    /// The inbox insert failed: 413 for a body over the inbox's limit, else 503 (the store delivers again).
    case inbox(RecordsError)
    /// SNS's `SubscribeURL` could not be fetched (503: SNS sends the confirmation again).
    case subscription(String)
}
