/// Writes and reads the bodies of bucket notifications and RGW's topic API. Pure.
enum NotificationXML {
    /// A `NotificationConfiguration` holding `rules` as `TopicConfiguration`s.
    static func configuration(_ rules: [NotificationRule]) -> [UInt8] {
        var out = Array("<NotificationConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">".utf8)
        func element(_ name: String, _ text: String) {
            out += Array("<\(name)>".utf8)
            MultipartXML.appendEscaped(text, to: &out)
            out += Array("</\(name)>".utf8)
        }
        for rule in rules {
            out += Array("<TopicConfiguration>".utf8)
            element("Id", rule.id)
            element("Topic", rule.topicARN)
            for event in rule.events { element("Event", event) }
            let filters = [("prefix", rule.prefix), ("suffix", rule.suffix)].compactMap { name, value in
                value.map { (name, $0) }
            }
            if !filters.isEmpty {
                out += Array("<Filter><S3Key>".utf8)
                for (name, value) in filters {
                    out += Array("<FilterRule>".utf8)
                    element("Name", name)
                    element("Value", value)
                    out += Array("</FilterRule>".utf8)
                }
                out += Array("</S3Key></Filter>".utf8)
            }
            out += Array("</TopicConfiguration>".utf8)
        }
        out += Array("</NotificationConfiguration>".utf8)
        return out
    }

    /// The rules of a `NotificationConfiguration` answer (at most `limit`).
    static func rules(_ body: [UInt8], limit: Int = 1000) throws(ObjectStoreError) -> [NotificationRule] {
        let root = S3XML.rootElementName(body)
        guard root == "NotificationConfiguration" else {
            throw .malformedResponse("expected <NotificationConfiguration>, got <\(root ?? "nothing")>")
        }
        var rules: [NotificationRule] = []
        for element in try MultipartXML.elements("TopicConfiguration", in: body, limit: limit) {
            guard let id = S3XML.firstElementText("Id", in: element),
                let topic = S3XML.firstElementText("Topic", in: element)
            else { throw .malformedResponse("a TopicConfiguration without Id or Topic") }
            let events = try MultipartXML.elements("Event", in: element, limit: 64).map {
                S3XML.decodeEntities($0[...])
            }
            var rule = NotificationRule(id: id, topicARN: topic, events: events)
            for filter in try MultipartXML.elements("FilterRule", in: element, limit: 16) {
                let name = S3XML.firstElementText("Name", in: filter)?.lowercased()
                let value = S3XML.firstElementText("Value", in: filter)
                if name == "prefix" { rule.prefix = value }
                if name == "suffix" { rule.suffix = value }
            }
            rules.append(rule)
        }
        return rules
    }

    /// The `TopicArn` of a `CreateTopicResponse`.
    static func createdTopicARN(_ body: [UInt8]) throws(ObjectStoreError) -> String {
        guard S3XML.rootElementName(body) == "CreateTopicResponse",
            let arn = S3XML.firstElementText("TopicArn", in: body), !arn.isEmpty
        else { throw .malformedResponse("CreateTopic answered without a TopicArn") }
        return arn
    }

    /// The topics of a `ListTopicsResponse` (at most `limit`).
    static func topics(_ body: [UInt8], limit: Int = 10_000) throws(ObjectStoreError) -> [TopicInfo] {
        guard S3XML.rootElementName(body) == "ListTopicsResponse" else {
            throw .malformedResponse("ListTopics answered without a ListTopicsResponse")
        }
        guard let list = try MultipartXML.elements("Topics", in: body, limit: 1).first else { return [] }
        var topics: [TopicInfo] = []
        for member in try MultipartXML.elements("member", in: list, limit: limit) {
            guard let arn = S3XML.firstElementText("TopicArn", in: member), !arn.isEmpty else {
                throw .malformedResponse("a ListTopics member without a TopicArn")
            }
            let name = S3XML.firstElementText("Name", in: member) ?? String(arn.split(separator: ":").last ?? "")
            let endpoint = S3XML.firstElementText("EndpointAddress", in: member).flatMap { $0.isEmpty ? nil : $0 }
            let opaque = S3XML.firstElementText("OpaqueData", in: member).flatMap { $0.isEmpty ? nil : $0 }
            let persistent = S3XML.firstElementText("Persistent", in: member)?.lowercased() == "true"
            topics.append(
                TopicInfo(name: name, arn: arn, pushEndpoint: endpoint, opaqueData: opaque, persistent: persistent))
        }
        return topics
    }
}
