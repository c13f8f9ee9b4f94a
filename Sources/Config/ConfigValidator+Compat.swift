import JSON

extension ConfigValidator {
    /// The methods a compatibility route may answer.
    static let compatMethods = ["GET", "POST", "PUT", "PATCH"]

    /// The `compat` section: known profile names, and each active route consistent with the types and
    /// with the other routes (no two on one method and path).
    mutating func validateCompat() {
        for (index, name) in config.compat.profiles.enumerated() where CompatProfiles.routes(of: name) == nil {
            report(
                "compat.profiles[\(index)]", "unknown profile (known: \(CompatProfiles.names.joined(separator: ", ")))",
                got: ConfigText.quoted(name))
        }
        var seen: [String: String] = [:]
        var names: Set<String> = []
        let profileRoutes = config.compat.profiles.flatMap { p in
            (CompatProfiles.routes(of: p) ?? []).map { ("compat.profiles.\(p)", $0) }
        }
        let own = config.compat.routes.enumerated().map { ("compat.routes[\($0.offset)]", $0.element) }
        for (path, route) in profileRoutes + own {
            validateCompatRoute(route, path: path)
            let signature = route.method + " " + CompatRouteConfig.routeShape(route.path)
            if let other = seen[signature] {
                report("\(path).path", "\(route.method) \(route.path) is already served by \(other)")
            }
            seen[signature] = route.name
            if !names.insert(route.name).inserted { report("\(path).name", "must be unique (\(route.name) repeats)") }
        }
    }

    /// The paths of the native API, which no compatibility route may take.
    static let nativePaths: Set<String> = [
        "/presigned-url", "/v1/storage/presigned-url", "/images", "/images/{}", "/healthz", "/readyz", "/metrics",
        "/openapi.yaml", "/openapi.json",
    ]

    /// One route: its method and path, its operation's inputs, its slot and its templates.
    mutating func validateCompatRoute(_ r: CompatRouteConfig, path: String) {
        if !Self.compatMethods.contains(r.method) {
            report(
                "\(path).method", "must be one of \(Self.compatMethods.joined(separator: ", "))",
                got: ConfigText.quoted(r.method))
        }
        if r.method == "GET" && r.operation != .issueByType {
            report("\(path).method", "GET serves issueByType only (the other operations read a JSON body)")
        }
        let params = r.pathParameters
        if !r.path.hasPrefix("/") || r.path.contains("?") || r.path.contains("//") || r.path.count > 512 {
            report(
                "\(path).path", "must be an absolute path template such as /api/v1/things/{id}",
                got: ConfigText.quoted(r.path))
        } else if Set(params).count != params.count {
            report("\(path).path", "repeats a path parameter", got: ConfigText.quoted(r.path))
        } else if Self.nativePaths.contains(CompatRouteConfig.routeShape(r.path)) {
            report("\(path).path", "is a native route of presignd", got: ConfigText.quoted(r.path))
        }
        if let e = r.expiresSeconds { check("\(path).expiresSeconds", e, in: 1...Self.maxExpiresSeconds) }
        if let e = r.readUrlExpiresSeconds {
            check("\(path).readUrlExpiresSeconds", e, in: 1...Self.maxExpiresSeconds)
        }
        switch r.operation {
        case .issueByType:
            if (r.type == nil) == (r.typeField == nil) {
                report("\(path).type", "issueByType needs exactly one of type (a fixed type) and typeField")
            }
            if let t = r.type {
                if let type = config.type(named: t), type.extensions.isEmpty {
                    report(
                        "\(path).type", "must name a type with extensions (issueByType signs a new key)",
                        got: ConfigText.quoted(t))
                } else if config.type(named: t) == nil {
                    report("\(path).type", "must name a type in types", got: ConfigText.quoted(t))
                }
            }
        case .issueByKey:
            if r.keyForm != .uuid { report("\(path).keyForm", "issueByKey takes a UUID key (keyForm uuid)") }
            let typeName = r.type ?? config.presign.defaultPostType
            if let type = config.type(named: typeName) {
                if type.requiresChatroomId {
                    report(
                        "\(path).type", "must name a type that does not require chatroomId",
                        got: ConfigText.quoted(typeName))
                }
            } else {
                report("\(path).type", "must name a type in types", got: ConfigText.quoted(typeName))
            }
        case .confirm, .replace:
            if r.operation == .replace && r.slot == nil {
                report("\(path).slot", "is required for replace (the slot whose record is replaced)")
            }
            for (i, t) in r.types.enumerated() where config.type(named: t) == nil {
                report("\(path).types[\(i)]", "must name a type in types", got: ConfigText.quoted(t))
            }
        }
        if r.keyForm == .objectKey, let prefix = r.keyPrefix, prefix.isEmpty {
            report("\(path).keyPrefix", "must not be empty (leave it out for no prefix)")
        }
        if r.keyPrefix != nil && r.keyForm != .objectKey {
            report("\(path).keyPrefix", "applies to keyForm objectKey only")
        }
        if let slot = r.slot {
            checkTemplate(slot, path: "\(path).slot", allowed: [], params: params)
        }
        for (i, m) in (r.metadata ?? []).enumerated() where !params.contains(m) {
            report("\(path).metadata[\(i)]", "must name a path parameter of \(r.path)", got: ConfigText.quoted(m))
        }
        let successNames = r.operation.issues ? CompatTemplate.issuePlaceholders : CompatTemplate.confirmPlaceholders
        checkPlaceholders(r.success.body, path: "\(path).success.body", allowed: successNames, params: params)
        for code in r.errors.keys.sorted() {
            if !CompatRouteConfig.errorCodes.contains(code) {
                report(
                    "\(path).errors.\(code)",
                    "unknown error code (one of \(CompatRouteConfig.errorCodes.sorted().joined(separator: ", ")))")
            }
            checkPlaceholders(
                r.errors[code]!.body, path: "\(path).errors.\(code).body", allowed: CompatTemplate.errorPlaceholders,
                params: params)
        }
    }

    /// Every placeholder of a body template is one of `allowed` or `param.NAME` of a path parameter.
    mutating func checkPlaceholders(_ body: JSONValue, path: String, allowed: Set<String>, params: [String]) {
        guard case .success(let names) = CompatTemplate.placeholders(in: body) else { return }
        for name in names where !Self.placeholderAllowed(name, allowed: allowed, params: params) {
            report(path, "unknown placeholder {\(name)} (here: \(Self.placeholderList(allowed, params)))")
        }
    }

    /// A slot template: text and `{param.NAME}` / `{NAME}` of path parameters only.
    mutating func checkTemplate(_ text: String, path: String, allowed: Set<String>, params: [String]) {
        guard let pieces = CompatTemplate.pieces(text), !pieces.isEmpty else {
            return report(path, "has an unclosed brace or a bad placeholder name", got: ConfigText.quoted(text))
        }
        for case .placeholder(let name) in pieces
        where !(params.contains(name) || Self.placeholderAllowed(name, allowed: allowed, params: params)) {
            report(path, "unknown placeholder {\(name)} (here: \(Self.placeholderList(allowed, params)))")
        }
    }

    /// Whether `name` is one of `allowed` or `param.NAME` of a path parameter.
    static func placeholderAllowed(_ name: String, allowed: Set<String>, params: [String]) -> Bool {
        if allowed.contains(name) { return true }
        return name.hasPrefix("param.") && params.contains(String(name.dropFirst("param.".count)))
    }

    /// The placeholders allowed in one place, for messages.
    static func placeholderList(_ allowed: Set<String>, _ params: [String]) -> String {
        let all = allowed.sorted() + params.map { "param.\($0)" }
        return all.isEmpty ? "none" : all.map { "{\($0)}" }.joined(separator: ", ")
    }
}
