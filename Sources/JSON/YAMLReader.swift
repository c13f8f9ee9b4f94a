/// Reads the JSON-compatible subset of YAML that the API document is written in, into a `JSONValue`
/// (members in document order). Pure; no Foundation.
///
/// Supported (YAML 1.1 as PyYAML's `safe_load` reads it, so the JSON form is the one Python tools see):
/// block mappings and sequences (indented with spaces), single-line flow mappings and sequences,
/// literal (`|`) and folded (`>`) block scalars with `-`/`+` chomping, single- and double-quoted
/// scalars on one line, plain scalars (continued on more-indented lines), and comments. Plain scalars
/// resolve as YAML 1.1 does: `~`, `null` and nothing are null; `true`/`false`/`yes`/`no`/`on`/`off`
/// (three spellings each) are Booleans; decimal integers and floats are numbers; the rest are strings.
/// Anything else (anchors, aliases, tags, directives, several documents, complex keys, tabs for
/// indentation, octal, hexadecimal or sexagesimal numbers, `.inf`, `.nan`) is refused with its line, so
/// a document never reads differently here than in Python.
public enum YAMLReader {
    /// The value of `text`, or the first construct outside the subset (`JSONError.Reason.yaml`).
    public static func value(_ text: String) throws(JSONError) -> JSONValue {
        var reader = Reader(text: text)
        return try reader.document()
    }
}

/// The reading state: the document's lines and the current one.
private struct Reader {
    /// One line of the document, without its line break.
    struct Line {
        /// The line's characters (Unicode scalars, so columns are characters).
        var text: [Unicode.Scalar]
        /// Its 1-based number, for errors.
        var number: Int
        /// Its byte offset in the document, for errors.
        var offset: Int
    }

    /// The lines.
    var lines: [Line] = []
    /// The line being read.
    var position = 0

    init(text: String) {
        var offset = 0
        var number = 1
        var current: [Unicode.Scalar] = []
        var start = 0
        for scalar in text.unicodeScalars {
            offset += String(scalar).utf8.count
            if scalar == "\n" {
                if current.last == "\r" { current.removeLast() }
                lines.append(Line(text: current, number: number, offset: start))
                current = []
                number += 1
                start = offset
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { lines.append(Line(text: current, number: number, offset: start)) }
    }

    // MARK: - Errors

    /// The error for `detail` at `line`.
    func failure(_ detail: String, at line: Int? = nil) -> JSONError {
        let index = min(line ?? position, lines.count - 1)
        guard index >= 0 else { return JSONError(offset: 0, reason: .yaml(line: 1, detail: detail)) }
        return JSONError(offset: lines[index].offset, reason: .yaml(line: lines[index].number, detail: detail))
    }

    // MARK: - Lines

    /// The column of the first non-space character of `line`, or nil when it is blank or a comment.
    static func indent(of line: [Unicode.Scalar]) -> Int? {
        var column = 0
        while column < line.count, line[column] == " " { column += 1 }
        if column == line.count || line[column] == "#" { return nil }
        return column
    }

    /// Moves past blank and comment lines; the next line's indent, or nil at the end.
    mutating func skipBlank() throws(JSONError) -> Int? {
        while position < lines.count {
            let text = lines[position].text
            if let column = Self.indent(of: text) {
                // Tabs are never indentation (YAML forbids them there).
                if let tab = text.firstIndex(of: "\t"), tab <= column {
                    throw failure("a tab in the indentation")
                }
                return column
            }
            position += 1
        }
        return nil
    }

    /// The whole document: one node, then nothing but blank lines.
    mutating func document() throws(JSONError) -> JSONValue {
        guard let column = try skipBlank() else { return .null }
        let first = lines[position].text
        if first.starts(with: Array("%".unicodeScalars)) || first.starts(with: Array("---".unicodeScalars)) {
            throw failure("directives and document markers are not read")
        }
        let value = try node(indent: column)
        if try skipBlank() != nil { throw failure("more content after the document's top node") }
        return value
    }

    /// The node whose first line is the current one, at column `indent`.
    mutating func node(indent: Int) throws(JSONError) -> JSONValue {
        let text = lines[position].text
        if isSequenceItem(text, at: indent) { return try sequence(indent: indent) }
        if try keySplit(text, from: indent) != nil { return try mapping(indent: indent) }
        // A scalar or flow collection standing alone on its lines.
        let rest = Array(text[indent...])
        position += 1
        return try inlineValue(rest, parentIndent: indent - 1)
    }

    /// True when `text` holds `-` followed by a space or the end of the line at `column`.
    func isSequenceItem(_ text: [Unicode.Scalar], at column: Int) -> Bool {
        column < text.count && text[column] == "-" && (column + 1 == text.count || text[column + 1] == " ")
    }

    /// A block sequence whose items start at column `indent`.
    mutating func sequence(indent: Int) throws(JSONError) -> JSONValue {
        var items: [JSONValue] = []
        while let column = try skipBlank(), column == indent, isSequenceItem(lines[position].text, at: indent) {
            var text = lines[position].text
            text[indent] = " "
            if let content = Self.indent(of: text) {
                // The item's content starts on this line: read it as if the dash were a space.
                lines[position].text = text
                items.append(try node(indent: content))
            } else {
                position += 1
                guard let next = try skipBlank(), next > indent else {
                    items.append(.null)
                    continue
                }
                items.append(try node(indent: next))
            }
        }
        if let column = try skipBlank(), column > indent { throw failure("a line indented more than its sequence") }
        return .array(items)
    }

    /// A block mapping whose keys start at column `indent`.
    mutating func mapping(indent: Int) throws(JSONError) -> JSONValue {
        var object = JSONObject()
        while let column = try skipBlank(), column == indent {
            let text = lines[position].text
            guard let (key, valueStart) = try keySplit(text, from: indent) else {
                throw failure("expected a `key:` at this indentation")
            }
            let keyLine = position
            let rest = Array(text[valueStart...]).trimmingSpaces()
            let value: JSONValue
            if rest.isEmpty || rest.first == "#" {
                position += 1
                if let next = try skipBlank(),
                    next > indent || (next == indent && isSequenceItem(lines[position].text, at: next))
                {
                    value = try node(indent: next)
                } else {
                    value = .null
                }
            } else {
                position += 1
                value = try inlineValue(rest, parentIndent: indent)
            }
            guard object.append(key: key, value: value) else { throw failure("duplicate key \(key)", at: keyLine) }
        }
        if let column = try skipBlank(), column > indent { throw failure("a line indented more than its mapping") }
        return .object(object)
    }

    /// The key of a block-mapping line (`key: …`, `'key': …`) and where its value starts; nil when the
    /// line is not a key line.
    func keySplit(_ text: [Unicode.Scalar], from start: Int) throws(JSONError) -> (String, Int)? {
        guard start < text.count else { return nil }
        let first = text[start]
        if first == "?" && (start + 1 == text.count || text[start + 1] == " ") {
            throw failure("complex keys (`? `) are not read")
        }
        if first == "'" || first == "\"" {
            var index = start
            let key = try quoted(text, &index)
            var after = index
            while after < text.count, text[after] == " " { after += 1 }
            guard after < text.count, text[after] == ":", after + 1 == text.count || text[after + 1] == " " else {
                return nil
            }
            return (key, after + 1)
        }
        if first == "[" || first == "{" || first == "-" && isSequenceItem(text, at: start) { return nil }
        var index = start
        while index < text.count {
            if text[index] == ":" && (index + 1 == text.count || text[index + 1] == " ") {
                let key = String(String.UnicodeScalarView(text[start..<index])).trimmingTrailingSpaces()
                try checkKey(key)
                return (key, index + 1)
            }
            if text[index] == "#" && index > start && text[index - 1] == " " { return nil }
            index += 1
        }
        return nil
    }

    // MARK: - Values on a line

    /// The value that starts with `rest` on the line just read (`position` is past it): a block scalar,
    /// a flow collection, a quoted scalar or a plain scalar continued on more-indented lines.
    mutating func inlineValue(_ rest: [Unicode.Scalar], parentIndent: Int) throws(JSONError) -> JSONValue {
        let line = position - 1
        guard let first = rest.first else { return .null }
        switch first {
        case "|", ">":
            return .string(try blockScalar(header: rest, parentIndent: parentIndent))
        case "[", "{":
            var index = 0
            let value = try flowValue(rest, &index, line: line)
            try expectEnd(rest, from: index, line: line)
            return value
        case "'", "\"":
            var index = 0
            let text = try quoted(rest, &index, line: line)
            try expectEnd(rest, from: index, line: line)
            return .string(text)
        case "&", "*", "!":
            throw failure("anchors, aliases and tags are not read", at: line)
        default:
            var text = String(String.UnicodeScalarView(Self.stripComment(rest))).trimmingTrailingSpaces()
            // A plain scalar continues on following lines indented more than its parent.
            var blankLines = 0
            while position < lines.count {
                let next = lines[position].text
                guard let column = Self.indent(of: next) else {
                    if next.allSatisfy({ $0 == " " }) {
                        blankLines += 1
                        position += 1
                        continue
                    }
                    break
                }
                guard column > parentIndent else { break }
                let piece = String(String.UnicodeScalarView(Self.stripComment(Array(next[column...]))))
                    .trimmingTrailingSpaces()
                text += blankLines > 0 ? String(repeating: "\n", count: blankLines) : " "
                text += piece
                blankLines = 0
                position += 1
            }
            // YAML reads `: ` inside a block plain scalar as a nested mapping and refuses it: so does this.
            if text.contains(": ") || text.hasSuffix(":") {
                throw failure("`: ` inside a plain scalar (quote the text)", at: line)
            }
            return try resolvePlain(text, line: line)
        }
    }

    /// `rest` up to a ` #` comment.
    static func stripComment(_ rest: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var index = 0
        while index < rest.count {
            if rest[index] == "#" && (index == 0 || rest[index - 1] == " ") { return Array(rest[..<index]) }
            index += 1
        }
        return rest
    }

    /// Fails unless only spaces or a comment follow `index`.
    func expectEnd(_ text: [Unicode.Scalar], from index: Int, line: Int) throws(JSONError) {
        var index = index
        while index < text.count, text[index] == " " { index += 1 }
        guard index == text.count || text[index] == "#" else {
            throw failure("unexpected text after a value", at: line)
        }
    }

    /// A literal or folded block scalar: `header` is `|` or `>` and its chomping indicator; its content is
    /// the following lines indented more than `parentIndent`.
    mutating func blockScalar(header: [Unicode.Scalar], parentIndent: Int) throws(JSONError) -> String {
        let line = position - 1
        let literal = header[0] == "|"
        var chomping: Unicode.Scalar = " "
        let indicators = Self.stripComment(Array(header.dropFirst()))
        for scalar in indicators where scalar != " " {
            guard (scalar == "-" || scalar == "+") && chomping == " " else {
                throw failure("block scalar indicator \(String(scalar)) is not read", at: line)
            }
            chomping = scalar
        }
        // The content lines, blank ones included, up to the first line indented no more than the parent.
        var content: [[Unicode.Scalar]] = []
        var contentIndent: Int?
        while position < lines.count {
            let text = lines[position].text
            let spaces = text.prefix { $0 == " " }.count
            if spaces == text.count {
                content.append([])
                position += 1
                continue
            }
            if contentIndent == nil {
                guard spaces > parentIndent else { break }
                contentIndent = spaces
            }
            guard let contentIndent, spaces >= contentIndent else { break }
            content.append(Array(text[contentIndent...]))
            position += 1
        }
        // Trailing blank lines belong to chomping, not to the text.
        var trailing = 0
        while let last = content.last, last.isEmpty {
            content.removeLast()
            trailing += 1
        }
        var body = ""
        if literal {
            body = content.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
        } else {
            // Folding (YAML 1.2, 8.1.3): a line break between two lines that start with no space becomes a
            // space; around more-indented lines and blank lines the breaks stay.
            var previousWasText = false
            var pendingBreaks = 0
            for (index, piece) in content.enumerated() {
                let text = String(String.UnicodeScalarView(piece))
                if piece.isEmpty {
                    pendingBreaks += 1
                    continue
                }
                let moreIndented = piece.first == " "
                if index > 0 {
                    if pendingBreaks > 0 {
                        body += String(
                            repeating: "\n", count: previousWasText && !moreIndented ? pendingBreaks : pendingBreaks + 1
                        )
                    } else {
                        body += previousWasText && !moreIndented ? " " : "\n"
                    }
                }
                body += text
                pendingBreaks = 0
                previousWasText = !moreIndented
            }
        }
        if content.isEmpty { return chomping == "+" ? String(repeating: "\n", count: trailing) : "" }
        switch chomping {
        case "-": return body
        case "+": return body + "\n" + String(repeating: "\n", count: trailing)
        default: return body + "\n"
        }
    }

    // MARK: - Scalars

    /// A quoted scalar starting at `index` (which ends past its closing quote); one line only.
    func quoted(_ text: [Unicode.Scalar], _ index: inout Int, line: Int? = nil) throws(JSONError) -> String {
        let quote = text[index]
        index += 1
        var output = String.UnicodeScalarView()
        while index < text.count {
            let scalar = text[index]
            if quote == "'" {
                if scalar == "'" {
                    if index + 1 < text.count, text[index + 1] == "'" {
                        output.append("'")
                        index += 2
                        continue
                    }
                    index += 1
                    return String(output)
                }
                output.append(scalar)
                index += 1
                continue
            }
            if scalar == "\"" {
                index += 1
                return String(output)
            }
            if scalar == "\\" {
                guard index + 1 < text.count else { break }
                let escape = text[index + 1]
                index += 2
                switch escape {
                case "\"": output.append("\"")
                case "\\": output.append("\\")
                case "/": output.append("/")
                case "n": output.append("\n")
                case "t": output.append("\t")
                case "r": output.append("\r")
                case "0": output.append("\u{0}")
                case "u":
                    guard index + 4 <= text.count,
                        let code = UInt32(String(String.UnicodeScalarView(text[index..<(index + 4)])), radix: 16),
                        let decoded = Unicode.Scalar(code)
                    else { throw failure("a \\u escape that is no character", at: line) }
                    output.append(decoded)
                    index += 4
                default:
                    throw failure("escape \\\(String(escape)) is not read", at: line)
                }
                continue
            }
            output.append(scalar)
            index += 1
        }
        throw failure("a quoted scalar must end on its line", at: line)
    }

    /// Fails for a plain key or scalar that starts with an indicator this reader does not implement.
    func checkPlain(_ text: String, line: Int? = nil) throws(JSONError) {
        guard let first = text.unicodeScalars.first else { return }
        if "&*!|>%@`".unicodeScalars.contains(first) {
            throw failure("a plain scalar may not start with \(String(first)) here", at: line)
        }
    }

    /// Fails for a plain key that YAML reads as something else than a string (`200`, `true`): JSON keys
    /// are strings, so such a key must be quoted (`'200'`).
    func checkKey(_ key: String, line: Int? = nil) throws(JSONError) {
        guard case .string = try resolvePlain(key, line: line ?? position) else {
            throw failure("the key \(key) is not a string in YAML: quote it", at: line)
        }
    }

    /// The value of a plain scalar: null, a Boolean, a number or a string, as YAML 1.1 resolves it.
    func resolvePlain(_ text: String, line: Int) throws(JSONError) -> JSONValue {
        try checkPlain(text, line: line)
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return .bool(true)
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return .bool(false)
        case ".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN", "-.Inf", "+.Inf", "-.INF", "+.INF":
            throw failure("\(text) has no JSON form", at: line)
        default: break
        }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
        let body = scalars[index...]
        // Number forms JSON has no literal for, refused rather than read differently than PyYAML would:
        // 0x/0o/0b, leading zeros (octal), `_` separators, sexagesimal `1:30`, a leading `.5`.
        let digitLed = body.first.map { ("0"..."9").contains($0) } ?? false
        if digitLed && body.count > 1 && body.first == "0" && ["x", "o", "b"].contains(body[body.startIndex + 1]) {
            throw failure("number form \(text) is not read", at: line)
        }
        if digitLed && body.allSatisfy({ ("0"..."9").contains($0) || "_:.eE+-".unicodeScalars.contains($0) })
            && body.contains(where: { $0 == "_" || $0 == ":" })
        {
            throw failure("number form \(text) is not read", at: line)
        }
        if body.first == ".", body.count > 1, ("0"..."9").contains(body[body.startIndex + 1]) {
            throw failure("number form \(text) is not read", at: line)
        }
        let digitsStart = index
        while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
        let integerDigits = index - digitsStart
        if index == scalars.count && integerDigits > 0 {
            if integerDigits > 1 && scalars[digitsStart] == "0" { throw failure("octal number \(text)", at: line) }
            return .number(JSONNumber(uncheckedLiteral: scalars[0] == "+" ? String(text.dropFirst()) : text))
        }
        // A float as PyYAML's resolver reads one: digits, a point, digits, an optional signed exponent.
        if integerDigits > 0, index < scalars.count, scalars[index] == "." {
            var end = index + 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            var exponentOK = true
            if end < scalars.count, scalars[end] == "e" || scalars[end] == "E" {
                var e = end + 1
                if e < scalars.count, scalars[e] == "-" || scalars[e] == "+" { e += 1 } else { exponentOK = false }
                let start = e
                while e < scalars.count, ("0"..."9").contains(scalars[e]) { e += 1 }
                exponentOK = exponentOK && e > start
                end = e
            }
            if end == scalars.count && exponentOK {
                guard let double = Double(text), let number = JSONNumber(double) else {
                    throw failure("number \(text) has no JSON form", at: line)
                }
                return .number(number)
            }
        }
        return .string(text)
    }

    // MARK: - Flow collections

    /// A flow collection, quoted or plain scalar starting at `index` in `text` (one line).
    func flowValue(_ text: [Unicode.Scalar], _ index: inout Int, line: Int) throws(JSONError) -> JSONValue {
        skipSpaces(text, &index)
        guard index < text.count else { throw failure("a flow collection must end on its line", at: line) }
        switch text[index] {
        case "{":
            index += 1
            var object = JSONObject()
            skipSpaces(text, &index)
            if index < text.count, text[index] == "}" {
                index += 1
                return .object(object)
            }
            while true {
                skipSpaces(text, &index)
                let key: String
                if index < text.count, text[index] == "'" || text[index] == "\"" {
                    key = try quoted(text, &index, line: line)
                } else {
                    key = plainFlow(text, &index, key: true)
                    try checkKey(key, line: line)
                }
                skipSpaces(text, &index)
                let value: JSONValue
                if index < text.count, text[index] == ":" {
                    index += 1
                    skipSpaces(text, &index)
                    if index < text.count, text[index] == "," || text[index] == "}" {
                        value = .null
                    } else {
                        value = try flowValue(text, &index, line: line)
                    }
                } else {
                    value = .null
                }
                guard object.append(key: key, value: value) else { throw failure("duplicate key \(key)", at: line) }
                skipSpaces(text, &index)
                guard index < text.count else { throw failure("a flow mapping must end on its line", at: line) }
                if text[index] == "," {
                    index += 1
                    continue
                }
                guard text[index] == "}" else { throw failure("expected , or } in a flow mapping", at: line) }
                index += 1
                return .object(object)
            }
        case "[":
            index += 1
            var items: [JSONValue] = []
            skipSpaces(text, &index)
            if index < text.count, text[index] == "]" {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try flowValue(text, &index, line: line))
                skipSpaces(text, &index)
                guard index < text.count else { throw failure("a flow sequence must end on its line", at: line) }
                if text[index] == "," {
                    index += 1
                    continue
                }
                guard text[index] == "]" else { throw failure("expected , or ] in a flow sequence", at: line) }
                index += 1
                return .array(items)
            }
        case "'", "\"":
            return .string(try quoted(text, &index, line: line))
        case "&", "*", "!":
            throw failure("anchors, aliases and tags are not read", at: line)
        default:
            return try resolvePlain(plainFlow(text, &index, key: false), line: line)
        }
    }

    /// A plain scalar in a flow collection: up to `,`, `]`, `}` or (for a key) `: `, trailing spaces
    /// dropped.
    func plainFlow(_ text: [Unicode.Scalar], _ index: inout Int, key: Bool) -> String {
        let start = index
        while index < text.count {
            let scalar = text[index]
            if scalar == "," || scalar == "]" || scalar == "}" { break }
            if scalar == ":"
                && (index + 1 == text.count || text[index + 1] == " " || text[index + 1] == ","
                    || text[index + 1] == "}" || text[index + 1] == "]")
            {
                break
            }
            index += 1
        }
        return String(String.UnicodeScalarView(text[start..<index])).trimmingTrailingSpaces()
    }

    /// Moves `index` past spaces.
    func skipSpaces(_ text: [Unicode.Scalar], _ index: inout Int) {
        while index < text.count, text[index] == " " { index += 1 }
    }
}

extension Array where Element == Unicode.Scalar {
    /// The scalars without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> [Unicode.Scalar] {
        var slice = self[...]
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return Array(slice)
    }
}

extension String {
    /// The text without trailing spaces.
    fileprivate func trimmingTrailingSpaces() -> String {
        var scalars = Array(unicodeScalars)
        while scalars.last == " " { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
