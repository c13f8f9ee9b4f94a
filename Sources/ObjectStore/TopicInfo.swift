/// One topic of Ceph RGW's SNS-compatible topic API, as ListTopics describes it.
public struct TopicInfo: Sendable, Equatable {
    /// The topic's name.
    public var name: String
    /// Its ARN (`arn:aws:sns:<zonegroup>::<name>` on RGW), what a bucket notification names.
    public var arn: String
    /// Where RGW pushes the events (`push-endpoint`), when it has one.
    public var pushEndpoint: String?
    /// The `OpaqueData` RGW copies into every event record (`opaqueData`), when set.
    public var opaqueData: String?
    /// Whether deliveries go through RGW's persistent queue (retried until the endpoint takes them).
    public var persistent: Bool

    /// A topic from its fields.
    public init(name: String, arn: String, pushEndpoint: String?, opaqueData: String?, persistent: Bool) {
        self.name = name
        self.arn = arn
        self.pushEndpoint = pushEndpoint
        self.opaqueData = opaqueData
        self.persistent = persistent
    }
}
