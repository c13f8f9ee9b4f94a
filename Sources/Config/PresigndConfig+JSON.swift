import JSON

extension PresigndConfig: CustomStringConvertible {
    /// The effective configuration as pretty JSON, secrets shown as `"<redacted>"` (or `null` when
    /// unset) and the password of `records.url` redacted: what `--check-config` prints.
    public func redactedJSON() -> String {
        jsonValue(includingSecretKeys: true).prettyPrinted()
    }

    /// `redactedJSON()`, so that printing a configuration never shows a secret.
    public var description: String { redactedJSON() }

    /// The configuration in config-file form; secret keys appear (redacted) only when asked for.
    func jsonValue(includingSecretKeys: Bool) -> JSONValue {
        var root = JSONObject()
        for section in ConfigKey.sections {
            if section == "types" {
                var types = JSONObject()
                for type in self.types { types[type.name] = type.jsonValue }
                root[section] = .object(types)
                continue
            }
            var members = JSONObject()
            for key in ConfigKey.all where key.section == section {
                switch key.kind {
                case .int(let property): members[key.name] = .number(JSONNumber(self[keyPath: property]))
                case .bool(let property): members[key.name] = .bool(self[keyPath: property])
                case .string(let property): members[key.name] = .string(self[keyPath: property])
                case .optionalString(let property): members[key.name] = .string(self[keyPath: property] ?? "")
                case .choice(let choice): members[key.name] = .string(choice.get(self))
                case .secret(let property):
                    guard includingSecretKeys else { continue }
                    members[key.name] = self[keyPath: property] == nil ? .null : .string("<redacted>")
                case .strings(let property):
                    members[key.name] = .array(self[keyPath: property].map(JSONValue.string))
                case .apiKeys(let property):
                    // The digests are shown: they are what the file holds, and the keys cannot be recovered from them.
                    members[key.name] = .array(
                        self[keyPath: property].map { entry in
                            var object: JSONObject = ["id": .string(entry.id), "sha256": .string(entry.sha256)]
                            if !entry.scopes.isEmpty { object["scopes"] = .array(entry.scopes.map(JSONValue.string)) }
                            return .object(object)
                        })
                case .recordsLocation(let property): members[key.name] = .string(self[keyPath: property].redacted)
                }
            }
            if section == "compat" { members["routes"] = .array(compat.routes.map(\.jsonValue)) }
            if section == "webhooks" { members["endpoints"] = .array(webhooks.endpoints.map(\.jsonValue)) }
            root[section] = .object(members)
        }
        return .object(root)
    }
}

extension UploadTypeConfig {
    /// The type as a member of the config file's `types` object (the name is the member's key).
    var jsonValue: JSONValue {
        .object([
            "extensions": .array(extensions.map(JSONValue.string)),
            "contentTypes": .array(contentTypes.map(JSONValue.string)),
            "keyTemplate": .string(keyTemplate),
            "permanentKeyTemplate": .string(permanentKeyTemplate ?? ""),
            "maxBytes": .number(JSONNumber(maxBytes)),
            "expiresSeconds": .number(JSONNumber(expiresSeconds)),
            "chatroomId": .string(chatroomId.rawValue),
            "contentCheck": .bool(contentCheck),
            "verifyChecksum": .string(verifyChecksum.rawValue),
            "computeSha256": .bool(computeSha256),
            "dedup": .bool(dedup),
            "scan": .string(scan.rawValue),
        ])
    }
}
