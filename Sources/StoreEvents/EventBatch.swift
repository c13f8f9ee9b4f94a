/// What one authenticated delivery holds: the usable events and, for each record that is not, why.
///
/// An unusable record is still part of an authenticated delivery: the endpoint answers 2xx (a store that
/// retries head-of-line would otherwise send it for ever) and counts it by reason.
public struct EventBatch: Sendable, Equatable {
    /// One record that cannot be used.
    public struct Unusable: Sendable, Equatable {
        /// Its position among the delivery's records, from 0.
        public var index: Int
        /// Why, as a metric label: `malformed-record`, `not-a-creation`, `wrong-bucket`, `unknown-key`.
        public var reason: String

        /// An unusable record from its fields.
        public init(index: Int, reason: String) {
            self.index = index
            self.reason = reason
        }
    }

    /// The usable events, in the delivery's order.
    public var events: [StoreEvent]
    /// The records that cannot be used.
    public var unusable: [Unusable]

    /// A batch from its fields.
    public init(events: [StoreEvent], unusable: [Unusable]) {
        self.events = events
        self.unusable = unusable
    }
}
