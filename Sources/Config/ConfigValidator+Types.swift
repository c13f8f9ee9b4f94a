extension ConfigValidator {
    /// Largest S3 object: 5 TiB.
    static let maxObjectBytes: Int64 = 5 << 40

    /// Every upload type.
    mutating func validateTypes() {
        if config.types.isEmpty { report("types", "must hold at least one type") }
        for type in config.types { validate(type) }
    }

    /// One upload type.
    mutating func validate(_ type: UploadTypeConfig) {
        let path = "types.\(type.name)"
        let nameCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
        if type.name.isEmpty || type.name.count > 64 || !type.name.allSatisfy({ nameCharacters.contains($0) })
            || type.name.first?.isLetter != true
        {
            report(path, "a type name must be 1-64 characters of A-Z 0-9 _, starting with a letter")
        }
        var seen: Set<String> = []
        for ext in type.extensions {
            if ext.isEmpty || ext.count > 10 || !ext.allSatisfy({ Self.lowerAlphanumerics.contains($0) }) {
                report("\(path).extensions", "each must be 1-10 characters of a-z 0-9", got: ConfigText.quoted(ext))
            } else if !seen.insert(ext).inserted {
                report("\(path).extensions", "lists an extension twice", got: ConfigText.quoted(ext))
            }
        }
        if type.contentTypes.isEmpty { report("\(path).contentTypes", "must list at least one content type") }
        seen = []
        for contentType in type.contentTypes {
            if !Self.isMediaType(contentType) {
                report(
                    "\(path).contentTypes", "each must be a lower-case type/subtype",
                    got: ConfigText.quoted(contentType))
            } else if !seen.insert(contentType).inserted {
                report("\(path).contentTypes", "lists a content type twice", got: ConfigText.quoted(contentType))
            }
        }
        let keyVariables = checkTemplate(type.keyTemplate, keyPath: "\(path).keyTemplate", type: type)
        if let keyVariables, !keyVariables.contains(.uuid) && !keyVariables.contains(.imageKey) {
            report("\(path).keyTemplate", "must use {uuid} or {imageKey} so that every upload gets its own key")
        }
        if let permanent = type.permanentKeyTemplate {
            _ = checkTemplate(permanent, keyPath: "\(path).permanentKeyTemplate", type: type)
            if permanent == type.keyTemplate {
                report("\(path).permanentKeyTemplate", "must differ from keyTemplate (or be empty: no promotion)")
            }
        }
        if type.contentCheck {
            let unchecked = type.contentTypes.filter { !UploadTypeConfig.checkableContentTypes.contains($0) }
            if !unchecked.isEmpty {
                report(
                    "\(path).contentCheck",
                    "is true, but the check records only images it recognises ("
                        + UploadTypeConfig.checkableContentTypes.sorted().joined(separator: ", ")
                        + "): set contentCheck to false for this type or remove "
                        + unchecked.joined(separator: ", ") + " from contentTypes")
            }
        }
        if type.maxBytes < 1 || type.maxBytes > Self.maxObjectBytes {
            report("\(path).maxBytes", "must be 1...\(Self.maxObjectBytes) (5 TiB)", got: "\(type.maxBytes)")
        }
        check("\(path).expiresSeconds", type.expiresSeconds, in: 1...Self.maxExpiresSeconds)
    }

    /// Checks one key template (`KeyTemplate`'s grammar) and returns the variables it uses (nil when it
    /// is empty or a brace is unclosed); `{ext}` needs extensions (`{chatroomId}` is the request's or a
    /// server-made UUID, so it needs nothing).
    mutating func checkTemplate(_ template: String, keyPath: String, type: UploadTypeConfig)
        -> Set<KeyTemplate.Variable>?
    {
        let got = ConfigText.quoted(template)
        let (problems, variables) = KeyTemplate.problems(in: template)
        var wellFormed = true
        for problem in problems {
            switch problem {
            case .empty:
                report(keyPath, "must not be empty")
                return nil
            case .tooLong: report(keyPath, "must be at most \(KeyTemplate.maximumTextCount) characters")
            case .unclosedBrace:
                report(keyPath, "has a { without }", got: got)
                wellFormed = false
            case .unknownVariable(let name):
                let known = KeyTemplate.Variable.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                report(keyPath, "uses unknown variable {\(name)} (known: \(known))", got: got)
            case .literalCharacter: report(keyPath, "has a literal character outside a-z 0-9 / _ . -", got: got)
            case .doubleDot: report(keyPath, "must not contain ..", got: got)
            case .doubleSlash: report(keyPath, "must not contain //", got: got)
            case .leadingSlash: report(keyPath, "must not start with /", got: got)
            case .trailingSlash: report(keyPath, "must not end with /", got: got)
            }
        }
        if variables.contains(.ext) && type.extensions.isEmpty {
            report(keyPath, "uses {ext}, so extensions must not be empty")
        }
        return wellFormed ? variables : nil
    }

    /// A lower-case `type/subtype` made of RFC 9110 token characters.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$&^_.+-")
        return text.count <= 127 && parts.count == 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { allowed.contains($0) } }
    }
}
