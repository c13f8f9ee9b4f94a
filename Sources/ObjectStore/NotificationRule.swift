/// One topic configuration of a bucket's notification configuration (`PUT /<bucket>?notification`):
/// which events of which keys go to which topic.
public struct NotificationRule: Sendable, Equatable {
    /// The rule's id (RGW calls it the notification's name).
    public var id: String
    /// The ARN of the topic the events go to.
    public var topicARN: String
    /// The event types, e.g. `s3:ObjectCreated:*`.
    public var events: [String]
    /// Only keys starting with this (a `prefix` filter rule), when set.
    public var prefix: String?
    /// Only keys ending with this (a `suffix` filter rule), when set.
    public var suffix: String?

    /// A rule from its fields.
    public init(id: String, topicARN: String, events: [String], prefix: String? = nil, suffix: String? = nil) {
        self.id = id
        self.topicARN = topicARN
        self.events = events
        self.prefix = prefix
        self.suffix = suffix
    }
}
