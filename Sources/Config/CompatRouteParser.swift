import JSON

/// Reads compatibility routes from their config-file form (`compat.routes`, and the built-in
/// profiles): an array of objects, each member checked for its kind; cross-checks against the rest
/// of the configuration are `ConfigValidator.validateCompat`'s.
enum CompatRouteParser {
    /// The members a route object may have.
    static let fieldNames = [
        "name", "method", "path", "operation", "type", "typeField", "extField", "keyField", "keyForm", "keyPrefix",
        "contentTypeField", "expiresSeconds", "readUrlExpiresSeconds", "types", "metadata", "slot", "deletePrevious",
        "success", "errors",
    ]

    /// The routes of `value` (an array), reporting every problem under `path`.
    static func routes(_ value: JSONValue?, path: String, problems: inout [ConfigProblem]) -> [CompatRouteConfig] {
        guard let elements = value?.arrayValue else {
            problems.append(ConfigProblem(keyPath: path, message: "must be an array of route objects"))
            return []
        }
        var routes: [CompatRouteConfig] = []
        for (index, element) in elements.enumerated() {
            if let route = self.route(element, path: "\(path)[\(index)]", problems: &problems) { routes.append(route) }
        }
        return routes
    }

    /// One route, or nil with its problems reported.
    static func route(_ value: JSONValue, path: String, problems: inout [ConfigProblem]) -> CompatRouteConfig? {
        guard let object = value.objectValue else {
            problems.append(ConfigProblem(keyPath: path, message: "must be an object (got \(ConfigText.shown(value)))"))
            return nil
        }
        let before = problems.count
        func report(_ member: String, _ message: String) {
            problems.append(ConfigProblem(keyPath: "\(path).\(member)", message: message))
        }
        func string(_ member: String) -> String? {
            guard let v = object[member] else { return nil }
            guard let s = v.stringValue else {
                report(member, "must be a string (got \(ConfigText.shown(v)))")
                return nil
            }
            return s
        }
        func strings(_ member: String) -> [String]? {
            guard let v = object[member] else { return nil }
            guard let a = v.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                report(member, "must be an array of strings (got \(ConfigText.shown(v)))")
                return nil
            }
            return a.compactMap(\.stringValue)
        }
        for member in object where !fieldNames.contains(member.key) {
            report(member.key, "unknown key (a route has \(fieldNames.joined(separator: ", ")))")
        }
        let name = string("name")
        let method = string("method")
        let routePath = string("path")
        var operation: CompatRouteConfig.Operation?
        if let text = string("operation") {
            operation = CompatRouteConfig.Operation(rawValue: text)
            if operation == nil {
                report(
                    "operation",
                    "must be one of \(CompatRouteConfig.Operation.allCases.map(\.rawValue).joined(separator: ", ")) (got \(ConfigText.quoted(text)))"
                )
            }
        }
        for (member, found) in [("name", name), ("method", method), ("path", routePath)] where found == nil {
            if object[member] == nil { report(member, "is required") }
        }
        if object["operation"] == nil { report("operation", "is required") }
        let success = shape(object["success"], path: "\(path).success", problems: &problems)
        if object["success"] == nil { report("success", "is required") }
        var errors: [String: CompatRouteConfig.Shape] = [:]
        if let e = object["errors"] {
            if let members = e.objectValue {
                for m in members {
                    if let s = shape(m.value, path: "\(path).errors.\(m.key)", problems: &problems) {
                        errors[m.key] = s
                    }
                }
            } else {
                report("errors", "must be an object of error code -> {status, body} (got \(ConfigText.shown(e)))")
            }
        }
        guard let name, let method, let routePath, let operation, let success else { return nil }
        var route = CompatRouteConfig(
            name: name, method: method, path: routePath, operation: operation, success: success)
        route.errors = errors
        route.type = string("type")
        route.typeField = string("typeField")
        if let s = string("extField") { route.extField = s }
        if let s = string("keyField") { route.keyField = s }
        if let s = string("keyForm") {
            if let form = CompatRouteConfig.KeyForm(rawValue: s) {
                route.keyForm = form
            } else {
                report("keyForm", "must be uuid or objectKey (got \(ConfigText.quoted(s)))")
            }
        }
        route.keyPrefix = string("keyPrefix")
        if let s = string("contentTypeField") { route.contentTypeField = s }
        if let v = object["expiresSeconds"] {
            if let n = v.intValue { route.expiresSeconds = n } else { report("expiresSeconds", "must be an integer") }
        }
        if let v = object["readUrlExpiresSeconds"] {
            if let n = v.intValue {
                route.readUrlExpiresSeconds = n
            } else {
                report("readUrlExpiresSeconds", "must be an integer")
            }
        }
        if let list = strings("types") { route.types = list }
        route.metadata = strings("metadata")
        route.slot = string("slot")
        if let v = object["deletePrevious"] {
            if let b = v.boolValue {
                route.deletePrevious = b
            } else {
                report("deletePrevious", "must be true or false")
            }
        }
        return problems.count == before ? route : nil
    }

    /// A `{status, body}` shape, or nil with its problems reported.
    static func shape(_ value: JSONValue?, path: String, problems: inout [ConfigProblem]) -> CompatRouteConfig.Shape? {
        guard let value else { return nil }
        guard let object = value.objectValue else {
            problems.append(ConfigProblem(keyPath: path, message: "must be an object {\"status\": …, \"body\": …}"))
            return nil
        }
        var ok = true
        for member in object where member.key != "status" && member.key != "body" {
            problems.append(
                ConfigProblem(keyPath: "\(path).\(member.key)", message: "unknown key (a shape has status, body)"))
            ok = false
        }
        var status: Int?
        if let s = object["status"] {
            if let n = s.intValue, (200...599).contains(n) {
                status = n
            } else {
                problems.append(ConfigProblem(keyPath: "\(path).status", message: "must be an HTTP status 200...599"))
                ok = false
            }
        }
        guard let body = object["body"] else {
            problems.append(ConfigProblem(keyPath: "\(path).body", message: "is required (the answer's JSON template)"))
            return nil
        }
        if case .failure(let bad) = CompatTemplate.placeholders(in: body) {
            problems.append(
                ConfigProblem(
                    keyPath: "\(path).body",
                    message: "\(ConfigText.quoted(bad.text)) has an unclosed brace or a bad placeholder name"))
            ok = false
        }
        return ok ? CompatRouteConfig.Shape(status: status, body: body) : nil
    }
}
