import JSON

/// One Amazon SNS HTTP(S) delivery: a Notification, a SubscriptionConfirmation or an
/// UnsubscribeConfirmation, with the fields its signature covers. Pure.
public struct SNSMessage: Sendable, Equatable {
    /// The kinds of message SNS posts to an HTTP(S) subscriber.
    public enum Kind: String, Sendable, Equatable {
        /// A published message (for S3: the event JSON in `message`).
        case notification = "Notification"
        /// Asks the subscriber to confirm by fetching `subscribeURL`.
        case subscriptionConfirmation = "SubscriptionConfirmation"
        /// Says the subscription was removed.
        case unsubscribeConfirmation = "UnsubscribeConfirmation"
    }

    /// `Type`.
    public var kind: Kind
    /// `MessageId`.
    public var messageId: String
    /// `TopicArn`.
    public var topicARN: String
    /// `Subject` (Notification only, optional).
    public var subject: String?
    /// `Message`.
    public var message: String
    /// `Timestamp` as sent (ISO 8601).
    public var timestamp: String
    /// `SignatureVersion`: `1` (SHA1withRSA) or `2` (SHA256withRSA).
    public var signatureVersion: String
    /// `Signature`, base64.
    public var signature: String
    /// `SigningCertURL`.
    public var signingCertURL: String
    /// `SubscribeURL` (confirmations).
    public var subscribeURL: String?
    /// `Token` (confirmations).
    public var token: String?

    /// The message of a parsed body; `.malformed` when it is not an SNS message.
    public init(json root: JSONValue) throws(StoreEventsError) {
        guard let object = root.objectValue else { throw .malformed("an SNS message is a JSON object") }
        func field(_ name: String) throws(StoreEventsError) -> String {
            guard let value = object[name]?.stringValue else { throw .malformed("the SNS message has no \(name)") }
            return value
        }
        func optional(_ name: String) throws(StoreEventsError) -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw .malformed("the SNS message's \(name) is not a string") }
            return text
        }
        guard let kind = Kind(rawValue: try field("Type")) else { throw .malformed("an SNS message of unknown Type") }
        self.kind = kind
        messageId = try field("MessageId")
        topicARN = try field("TopicArn")
        message = try field("Message")
        timestamp = try field("Timestamp")
        signatureVersion = try field("SignatureVersion")
        signature = try field("Signature")
        signingCertURL = try field("SigningCertURL")
        subject = kind == .notification ? try optional("Subject") : nil
        if kind == .notification {
            subscribeURL = nil
            token = nil
        } else {
            subscribeURL = try field("SubscribeURL")
            token = try field("Token")
        }
    }

    /// The text SNS signed: the covered fields as `name\nvalue\n`, in byte order of their names —
    /// Notification: Message, MessageId, Subject (when present), Timestamp, TopicArn, Type; the
    /// confirmations: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type (AWS, "Verifying
    /// the signatures of Amazon SNS messages").
    public var stringToSign: String {
        var pairs: [(String, String)] = [("Message", message), ("MessageId", messageId)]
        switch kind {
        case .notification:
            if let subject { pairs.append(("Subject", subject)) }
        case .subscriptionConfirmation, .unsubscribeConfirmation:
            pairs.append(("SubscribeURL", subscribeURL ?? ""))
        }
        pairs.append(("Timestamp", timestamp))
        if kind != .notification { pairs.append(("Token", token ?? "")) }
        pairs.append(("TopicArn", topicARN))
        pairs.append(("Type", kind.rawValue))
        var text = ""
        for (name, value) in pairs { text += name + "\n" + value + "\n" }
        return text
    }
}
