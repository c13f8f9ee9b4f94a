/// A strict RFC 8259 parser: bytes in, one `JSONValue` out, or a `JSONError` with its byte offset.
///
/// Strict means: exactly one value surrounded by optional whitespace; well-formed UTF-8 only
/// (no overlong forms, no encoded surrogates, nothing above U+10FFFF, no byte order mark); no
/// unescaped control characters; `\u` surrogates only in valid pairs; no trailing commas, leading
/// zeros, `NaN` or `Infinity`; no duplicate keys in an object; nesting and size within `limits`.
public struct JSONParser: Sendable {
    /// The bounds a document must stay within.
    public struct Limits: Sendable, Equatable {
        /// Most arrays and objects nested inside each other (a top-level `[]` is depth 1).
        public var maxDepth: Int
        /// Most bytes in the whole document.
        public var maxBytes: Int

        /// Limits with the defaults: depth 64, one mebibyte.
        ///
        /// `maxDepth` is capped at 1000 because the parser recurses once per level.
        public init(maxDepth: Int = 64, maxBytes: Int = 1 << 20) {
            precondition(maxDepth >= 1 && maxDepth <= 1000, "JSONParser.Limits: maxDepth must be 1...1000")
            precondition(maxBytes >= 0, "JSONParser.Limits: maxBytes must not be negative")
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }
    }

    /// The limits applied to every document.
    public var limits: Limits

    /// A parser with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Parses one document from `bytes`.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        if bytes.count > limits.maxBytes {
            throw JSONError(offset: limits.maxBytes, reason: .tooLarge(limit: limits.maxBytes))
        }
        var scanner = JSONScanner(bytes: bytes, maxDepth: limits.maxDepth)
        return try scanner.parseDocument()
    }

    /// Parses one document from `bytes`.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            do throws(JSONError) { return .success(try parse(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses one document from the UTF-8 of `text`.
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONError> = text.withUTF8 { utf8 in
            do throws(JSONError) {
                return .success(try parse(UnsafeRawBufferPointer(utf8)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

extension JSONValue {
    /// Parses one strict RFC 8259 document from `bytes`.
    public init(parsing bytes: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) throws(JSONError) {
        self = try JSONParser(limits: limits).parse(bytes)
    }

    /// Parses one strict RFC 8259 document from `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer, limits: JSONParser.Limits = JSONParser.Limits())
        throws(JSONError)
    {
        self = try JSONParser(limits: limits).parse(bytes)
    }

    /// Parses one strict RFC 8259 document from the UTF-8 of `text`.
    public init(parsing text: String, limits: JSONParser.Limits = JSONParser.Limits()) throws(JSONError) {
        self = try JSONParser(limits: limits).parse(text)
    }
}
