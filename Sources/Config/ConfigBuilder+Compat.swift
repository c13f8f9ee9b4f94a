import JSON

extension ConfigBuilder {
    /// Applies the `compat` section: `profiles` as a scalar key, `routes` (file only) replacing the
    /// routes of earlier layers.
    mutating func applyCompat(_ members: JSONObject) {
        for member in members {
            if member.key == "routes" {
                var found: [ConfigProblem] = []
                let routes = CompatRouteParser.routes(member.value, path: "compat.routes", problems: &found)
                problems += found
                config.compat.routes = routes
            } else {
                applySection("compat", JSONObject([(member.key, member.value)]))
            }
        }
    }
}

extension CompatRouteConfig {
    /// The route in its config-file form (what `--check-config` prints).
    var jsonValue: JSONValue {
        var o = JSONObject()
        o["name"] = .string(name)
        o["method"] = .string(method)
        o["path"] = .string(path)
        o["operation"] = .string(operation.rawValue)
        if let type { o["type"] = .string(type) }
        if let typeField { o["typeField"] = .string(typeField) }
        o["extField"] = .string(extField)
        o["keyField"] = .string(keyField)
        o["keyForm"] = .string(keyForm.rawValue)
        if let keyPrefix { o["keyPrefix"] = .string(keyPrefix) }
        o["contentTypeField"] = .string(contentTypeField)
        if let expiresSeconds { o["expiresSeconds"] = .number(JSONNumber(expiresSeconds)) }
        o["types"] = .array(types.map(JSONValue.string))
        if let metadata { o["metadata"] = .array(metadata.map(JSONValue.string)) }
        if let slot { o["slot"] = .string(slot) }
        o["deletePrevious"] = .bool(deletePrevious)
        o["success"] = success.jsonValue
        var e = JSONObject()
        for code in errors.keys.sorted() { e[code] = errors[code]!.jsonValue }
        o["errors"] = .object(e)
        return .object(o)
    }
}

extension CompatRouteConfig.Shape {
    /// `{"status": …, "body": …}` (status only when set).
    var jsonValue: JSONValue {
        var o = JSONObject()
        if let status { o["status"] = .number(JSONNumber(status)) }
        o["body"] = body
        return .object(o)
    }
}
