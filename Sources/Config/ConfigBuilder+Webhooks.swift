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
        objectEntries(
            value, path: "webhooks.endpoints", shape: #"{"name", "url", "events"}"#, kind: "an endpoint",
            required: ("name", "url"), list: "events"
        ) { WebhookEndpointConfig(name: $0, url: $1, events: $2) }
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
