import JSON

extension ConfigBuilder {
    /// Limits for config files: generous, but a config file is never megabytes deep.
    static let documentLimits = JSONParser.Limits(maxDepth: 16, maxBytes: 1 << 20)

    /// Applies a config document (the built-in defaults or a file); `name` labels whole-document problems.
    mutating func applyDocument(_ bytes: [UInt8], name: String) {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes, limits: Self.documentLimits)
        } catch {
            return report(name, "not valid JSON: \(error.description)")
        }
        guard let root = document.objectValue else {
            return report(name, "must hold a JSON object (got \(document.typeName))")
        }
        for section in root {
            guard ConfigKey.sections.contains(section.key) else {
                report(section.key, "unknown key (sections are \(ConfigKey.sections.joined(separator: ", ")))")
                continue
            }
            guard let members = section.value.objectValue else {
                report(section.key, "must be an object (got \(ConfigText.shown(section.value)))")
                continue
            }
            if section.key == "types" {
                applyTypes(members)
            } else if section.key == "compat" {
                applyCompat(members)
            } else if section.key == "webhooks" {
                applyWebhooks(members)
            } else {
                applySection(section.key, members)
            }
        }
    }

    /// Applies the members of one scalar section.
    mutating func applySection(_ section: String, _ members: JSONObject) {
        for member in members {
            let path = "\(section).\(member.key)"
            guard let key = ConfigKey.find(section: section, name: member.key) else {
                report(path, "unknown key")
                continue
            }
            let value = member.value
            switch key.kind {
            case .int(let property):
                guard let number = value.numberValue, let integer = number.int else {
                    report(path, "must be an integer (got \(ConfigText.shown(value)))")
                    continue
                }
                config[keyPath: property] = integer
            case .bool(let property):
                guard let flag = value.boolValue else {
                    report(path, "must be true or false (got \(ConfigText.shown(value)))")
                    continue
                }
                config[keyPath: property] = flag
            case .string(let property):
                guard let text = string(value, path: path) else { continue }
                config[keyPath: property] = text
            case .optionalString(let property):
                guard let text = string(value, path: path) else { continue }
                config[keyPath: property] = text.isEmpty ? nil : text
            case .choice(let choice):
                guard let text = value.stringValue, choice.set(&config, text) else {
                    report(path, "\(choice.refusal) (got \(ConfigText.shown(value)))")
                    continue
                }
            case .secret:
                let variable = key.environmentVariable
                report(path, "secrets are not read from the config file; set \(variable) or \(variable)_FILE")
                continue
            case .strings(let property):
                guard let elements = value.arrayValue, elements.allSatisfy({ $0.stringValue != nil }) else {
                    report(path, "must be an array of strings (got \(ConfigText.shown(value)))")
                    continue
                }
                config[keyPath: property] = elements.compactMap(\.stringValue)
            case .apiKeys(let property):
                guard let entries = apiKeys(value, path: path) else { continue }
                config[keyPath: property] = entries
            case .recordsLocation(let property):
                guard let text = value.stringValue else {
                    report(path, "must be a string (got \(value.typeName))")
                    continue
                }
                do {
                    config[keyPath: property] = try RecordsLocation(parsing: text)
                } catch {
                    for problem in error.problems { report(path, problem.message) }
                    continue
                }
            }
            origins[path] = nil
            assigned.insert(path)
        }
    }

    /// The text of a string member, or nil with the problem reported.
    mutating func string(_ value: JSONValue, path: String) -> String? {
        guard let text = value.stringValue else {
            report(path, "must be a string (got \(ConfigText.shown(value)))")
            return nil
        }
        return text
    }

    /// The API key entries of `value`: an array of objects with the string members `id` and `sha256` and
    /// an optional array of strings `scopes`; nil (with problems reported) otherwise.
    mutating func apiKeys(_ value: JSONValue, path: String) -> [APIKeyConfig]? {
        objectEntries(
            value, path: path, shape: #"{"id": …, "sha256": …}"#, kind: "an API key", required: ("id", "sha256"),
            list: "scopes"
        ) { APIKeyConfig(id: $0, sha256: $1, scopes: $2) }
    }

    /// The entries of the array of objects `value` at `path` (`shape` shows one in the problem of a value
    /// that is no array): each object has the string members `required`, an optional array of strings
    /// `list` and no other member (`kind` names the entry in that problem), and is made by `make`; nil
    /// when any is not (each problem reported).
    mutating func objectEntries<Entry>(
        _ value: JSONValue, path: String, shape: String, kind: String, required: (String, String), list: String,
        make: (String, String, [String]) -> Entry
    ) -> [Entry]? {
        guard let elements = value.arrayValue else {
            report(path, "must be an array of \(shape) objects (got \(ConfigText.shown(value)))")
            return nil
        }
        let members = [required.0, required.1, list]
        var entries: [Entry] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let object = element.objectValue else {
                report(entryPath, "must be an object (got \(ConfigText.shown(element)))")
                valid = false
                continue
            }
            for member in object where !members.contains(member.key) {
                report("\(entryPath).\(member.key)", "unknown key (\(kind) has \(members.joined(separator: ", ")))")
                valid = false
            }
            var listed: [String] = []
            if let member = object[list] {
                guard let strings = member.arrayValue, strings.allSatisfy({ $0.stringValue != nil }) else {
                    report("\(entryPath).\(list)", "must be an array of strings (got \(ConfigText.shown(member)))")
                    valid = false
                    continue
                }
                listed = strings.compactMap(\.stringValue)
            }
            guard let first = object[required.0]?.stringValue, let second = object[required.1]?.stringValue else {
                report(entryPath, "must have the string members \(required.0) and \(required.1)")
                valid = false
                continue
            }
            entries.append(make(first, second, listed))
        }
        return valid ? entries : nil
    }

    /// Applies `types`: a type already known is updated field by field, a new one is appended,
    /// and `null` removes a type.
    mutating func applyTypes(_ members: JSONObject) {
        for member in members {
            let path = "types.\(member.key)"
            let existing = types.firstIndex { $0.name == member.key }
            if member.value.isNull {
                if let existing {
                    types.remove(at: existing)
                } else {
                    report(path, "cannot remove a type that is not configured")
                }
                continue
            }
            guard let fields = member.value.objectValue else {
                report(path, "must be an object, or null to remove the type (got \(ConfigText.shown(member.value)))")
                continue
            }
            var draft = existing.map { types[$0] } ?? UploadTypeDraft(name: member.key)
            if fields["chatroomId"] != nil && fields["requiresChatroomId"] != nil {
                report(path, "give chatroomId or the older requiresChatroomId, not both")
            }
            for field in fields {
                applyTypeField(field.key, field.value, to: &draft, path: "\(path).\(field.key)")
            }
            if let existing {
                types[existing] = draft
            } else {
                types.append(draft)
            }
        }
    }

    /// Applies one field of a type object.
    mutating func applyTypeField(_ name: String, _ value: JSONValue, to draft: inout UploadTypeDraft, path: String) {
        func strings() -> [String]? {
            guard let elements = value.arrayValue else {
                report(path, "must be an array of strings (got \(ConfigText.shown(value)))")
                return nil
            }
            let texts = elements.compactMap(\.stringValue)
            guard texts.count == elements.count else {
                report(path, "must be an array of strings")
                return nil
            }
            return texts
        }
        func string() -> String? {
            guard let text = value.stringValue else {
                report(path, "must be a string (got \(ConfigText.shown(value)))")
                return nil
            }
            return text
        }
        switch name {
        case "extensions": if let list = strings() { draft.extensions = list }
        case "contentTypes": if let list = strings() { draft.contentTypes = list }
        case "keyTemplate": if let text = string() { draft.keyTemplate = text }
        case "permanentKeyTemplate": if let text = string() { draft.permanentKeyTemplate = text }
        case "maxBytes":
            guard let bytes = value.int64Value else {
                return report(path, "must be an integer (got \(ConfigText.shown(value)))")
            }
            draft.maxBytes = bytes
        case "expiresSeconds":
            guard let seconds = value.intValue else {
                return report(path, "must be an integer (got \(ConfigText.shown(value)))")
            }
            draft.expiresSeconds = seconds
        case "chatroomId":
            guard let text = value.stringValue, let rule = UploadTypeConfig.ChatroomIdRule(rawValue: text) else {
                let choices = UploadTypeConfig.ChatroomIdRule.allCases.map { "\"\($0.rawValue)\"" }
                return report(path, "must be \(choices.joined(separator: " or ")) (got \(ConfigText.shown(value)))")
            }
            draft.chatroomId = rule
        case "requiresChatroomId":
            guard let flag = value.boolValue else {
                return report(path, "must be true or false (got \(ConfigText.shown(value)))")
            }
            draft.chatroomId = flag ? .required : .serverMade
        case "contentCheck":
            guard let flag = value.boolValue else {
                return report(path, "must be true or false (got \(ConfigText.shown(value)))")
            }
            draft.contentCheck = flag
        case "verifyChecksum":
            guard let text = value.stringValue, let mode = UploadTypeConfig.VerifyChecksum(rawValue: text) else {
                let choices = UploadTypeConfig.VerifyChecksum.allCases.map { "\"\($0.rawValue)\"" }
                return report(path, "must be \(choices.joined(separator: " or ")) (got \(ConfigText.shown(value)))")
            }
            draft.verifyChecksum = mode
        case "computeSha256":
            guard let flag = value.boolValue else {
                return report(path, "must be true or false (got \(ConfigText.shown(value)))")
            }
            draft.computeSha256 = flag
        case "dedup":
            guard let flag = value.boolValue else {
                return report(path, "must be true or false (got \(ConfigText.shown(value)))")
            }
            draft.dedup = flag
        case "scan":
            guard let text = value.stringValue, let mode = UploadTypeConfig.ScanMode(rawValue: text) else {
                let choices = UploadTypeConfig.ScanMode.allCases.map { "\"\($0.rawValue)\"" }
                return report(path, "must be \(choices.joined(separator: " or ")) (got \(ConfigText.shown(value)))")
            }
            draft.scan = mode
        default:
            report(path, "unknown key (a type has \(UploadTypeDraft.fieldNames.joined(separator: ", ")))")
        }
    }
}
