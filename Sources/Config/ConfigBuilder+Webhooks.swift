import JSON

extension ConfigBuilder {
    /// Applies the `webhooks` section: its scalar keys, and `endpoints` (file only) replacing the endpoints
    /// of earlier layers.
    mutating func applyWebhooks(_ members: JSONObject) {
        for member in members {
            if member.key == "endpoints" {
                guard let endpoints = webhookEndpoints(member.value) else { continue }
                config.webhooks.endpoints = endpoints
            } else {
                applySection("webhooks", JSONObject([(member.key, member.value)]))
            }
        }
    }

    /// The endpoints of `value`: an array of objects with the string members `name` and `url` and an
    /// optional array of strings `events`; nil (with problems reported) otherwise.
    mutating func webhookEndpoints(_ value: JSONValue) -> [WebhookEndpointConfig]? {
        let path = "webhooks.endpoints"
        guard let elements = value.arrayValue else {
            report(path, #"must be an array of {"name", "url", "events"} objects (got \#(ConfigText.shown(value)))"#)
            return nil
        }
        var endpoints: [WebhookEndpointConfig] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let object = element.objectValue else {
                report(entryPath, "must be an object (got \(ConfigText.shown(element)))")
                valid = false
                continue
            }
            for member in object where !["name", "url", "events"].contains(member.key) {
                report("\(entryPath).\(member.key)", "unknown key (an endpoint has name, url, events)")
                valid = false
            }
            guard let name = object["name"]?.stringValue, let url = object["url"]?.stringValue else {
                report(entryPath, "must have the string members name and url")
                valid = false
                continue
            }
            var events: [String] = []
            if let member = object["events"] {
                guard let list = member.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                    report("\(entryPath).events", "must be an array of strings (got \(ConfigText.shown(member)))")
                    valid = false
                    continue
                }
                events = list.compactMap(\.stringValue)
            }
            endpoints.append(WebhookEndpointConfig(name: name, url: url, events: events))
        }
        return valid ? endpoints : nil
    }
}

extension WebhookEndpointConfig {
    /// The endpoint in its config-file form (what `--check-config` prints).
    var jsonValue: JSONValue {
        .object([
            "name": .string(name), "url": .string(url), "events": .array(events.map(JSONValue.string)),
        ])
    }
}
