import Config
import JSON

/// A compatibility route's answer template, compiled once at start-up: the template's JSON written
/// out as literal byte runs, with the placeholders left as slots. Rendering appends the runs and the
/// values (escaped), so a request parses nothing and builds no JSON tree.
struct Envelope: Sendable {
    /// A value a placeholder stands for.
    enum Field: Sendable, Equatable {
        case url, key, imageKey, expiresAt, method, headers
        case id, type, contentType, size, createdAt, metadata, sha256
        case code, message, status, fieldErrors
        /// A path parameter, by name.
        case param(String)

        /// The field of a placeholder name (validated by `ConfigValidator.validateCompat`).
        init?(_ name: String) {
            switch name {
            case "url": self = .url
            case "key": self = .key
            case "imageKey": self = .imageKey
            case "expiresAt": self = .expiresAt
            case "method": self = .method
            case "headers": self = .headers
            case "id": self = .id
            case "type": self = .type
            case "contentType": self = .contentType
            case "size": self = .size
            case "createdAt": self = .createdAt
            case "metadata": self = .metadata
            case "sha256": self = .sha256
            case "code": self = .code
            case "message": self = .message
            case "status": self = .status
            case "fieldErrors": self = .fieldErrors
            default:
                guard name.hasPrefix("param.") else { return nil }
                self = .param(String(name.dropFirst("param.".count)))
            }
        }
    }

    /// One piece of the compiled body.
    enum Part: Sendable {
        /// Bytes as they are.
        case bytes([UInt8])
        /// A whole JSON value: a quoted string, or raw JSON for objects and numbers.
        case value(Field)
        /// A value written as text inside a string that has other text (no quotes of its own).
        case inline(Field)
    }

    /// The values of one answer. A field the answer has no value for renders as `null` (as text: empty).
    struct Values {
        var url: String?
        var key: String?
        var imageKey: String?
        var expiresAtMs: Int64?
        var headers: [(name: String, value: String)] = []
        var id: String?
        var type: String?
        var contentType: String?
        var size: Int64?
        var createdAtMs: Int64?
        var metadataJSON: String?
        var sha256: String?
        var code: String?
        var message: String?
        var status: Int?
        var fieldErrors: FieldErrors?
        var parameters: [(name: String, value: String)] = []
    }

    /// The compiled pieces.
    let parts: [Part]

    /// Whether the template has a placeholder of `field`.
    func uses(_ field: Field) -> Bool {
        parts.contains { part in
            switch part {
            case .value(let f), .inline(let f): return f == field
            case .bytes: return false
            }
        }
    }
    /// The bytes of the literal runs (a starting capacity for the answer).
    let literalBytes: Int

    /// Compiles `template`; placeholders that name no field (impossible after validation) render as null.
    init(_ template: JSONValue) {
        var parts: [Part] = []
        var run: [UInt8] = []
        func flush() {
            if !run.isEmpty { parts.append(.bytes(run)) }
            run = []
        }
        func walk(_ v: JSONValue) {
            switch v {
            case .object(let o):
                run.append(UInt8(ascii: "{"))
                for (i, m) in o.members.enumerated() {
                    if i > 0 { run.append(UInt8(ascii: ",")) }
                    JSONWriter.appendQuoted(m.key, to: &run)
                    run.append(UInt8(ascii: ":"))
                    walk(m.value)
                }
                run.append(UInt8(ascii: "}"))
            case .array(let a):
                run.append(UInt8(ascii: "["))
                for (i, e) in a.enumerated() {
                    if i > 0 { run.append(UInt8(ascii: ",")) }
                    walk(e)
                }
                run.append(UInt8(ascii: "]"))
            case .string(let s):
                let pieces = CompatTemplate.pieces(s) ?? [.text(s)]
                if pieces.count == 1, case .placeholder(let name) = pieces[0] {
                    flush()
                    parts.append(Field(name).map { .value($0) } ?? .bytes(Array("null".utf8)))
                    return
                }
                run.append(UInt8(ascii: "\""))
                for piece in pieces {
                    switch piece {
                    case .text(let t): Envelope.appendUnquoted(t, to: &run)
                    case .placeholder(let name):
                        guard let field = Field(name) else { continue }
                        flush()
                        parts.append(.inline(field))
                    }
                }
                run.append(UInt8(ascii: "\""))
            default:
                run += v.serialized()
            }
        }
        walk(template)
        flush()
        self.parts = parts
        self.literalBytes = parts.reduce(0) { n, p in if case .bytes(let b) = p { return n + b.count } else { return n }
        }
    }

    /// The body for `values`.
    func render(_ values: Values) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(literalBytes + 64 + (values.url?.utf8.count ?? 0) + (values.message?.utf8.count ?? 0))
        for part in parts {
            switch part {
            case .bytes(let b): out += b
            case .value(let f): Envelope.appendValue(f, values, to: &out)
            case .inline(let f):
                var whole: [UInt8] = []
                Envelope.appendValue(f, values, to: &whole)
                if whole.first == UInt8(ascii: "\""), whole.count >= 2 {
                    out += whole[1..<(whole.count - 1)]
                } else if whole != Array("null".utf8) {
                    // A raw value (a number, an object) inside text: its JSON, escaped as text.
                    Envelope.appendUnquoted(String(decoding: whole, as: UTF8.self), to: &out)
                }
            }
        }
        return out
    }

    /// `text` escaped as JSON string content, without the quotes.
    static func appendUnquoted(_ text: String, to out: inout [UInt8]) {
        let start = out.count
        JSONWriter.appendQuoted(text, to: &out)
        out.removeLast()
        out.remove(at: start)
    }

    /// One field's JSON value.
    static func appendValue(_ f: Field, _ v: Values, to out: inout [UInt8]) {
        func string(_ s: String?) {
            if let s { JSONWriter.appendQuoted(s, to: &out) } else { JSONWriter.appendLiteral("null", to: &out) }
        }
        func time(_ ms: Int64?) {
            if let ms {
                Timestamp.appendQuotedISO8601(millis: ms, to: &out)
            } else {
                JSONWriter.appendLiteral("null", to: &out)
            }
        }
        switch f {
        case .url: string(v.url)
        case .key: string(v.key)
        case .imageKey: string(v.imageKey)
        case .expiresAt: time(v.expiresAtMs)
        case .method: string("PUT")
        case .headers:
            out.append(UInt8(ascii: "{"))
            for (i, h) in v.headers.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(h.name, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.appendQuoted(h.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .id: string(v.id)
        case .type: string(v.type)
        case .contentType: string(v.contentType)
        case .size:
            if let s = v.size {
                JSONWriter.appendDecimal(s, to: &out)
            } else {
                JSONWriter.appendLiteral("null", to: &out)
            }
        case .createdAt: string(v.createdAtMs.map(Timestamp.iso8601Millis))
        case .metadata:
            if let m = v.metadataJSON { out += Array(m.utf8) } else { JSONWriter.appendLiteral("null", to: &out) }
        case .sha256: string(v.sha256)
        case .code: string(v.code)
        case .message: string(v.message)
        case .status:
            if let s = v.status {
                JSONWriter.appendDecimal(Int64(s), to: &out)
            } else {
                JSONWriter.appendLiteral("null", to: &out)
            }
        case .fieldErrors:
            out.append(UInt8(ascii: "{"))
            for (i, e) in (v.fieldErrors?.list ?? []).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(e.field, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.appendQuoted(e.message, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .param(let name): string(v.parameters.first { $0.name == name }?.value)
        }
    }
}
