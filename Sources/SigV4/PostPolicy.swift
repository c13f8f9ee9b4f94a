import System

/// The policy document of a browser form upload (S3 POST Object), written as JSON. Pure.
///
/// The JSON is written byte for byte as Python's `json.dumps` writes it (`", "` and `": "`
/// separators, every character outside printable ASCII escaped as `\uXXXX` in lower-case hex), so the
/// same conditions in the same order give the same base64 and signature as botocore's
/// `generate_presigned_post`.
struct PostPolicy: Sendable {
    /// One condition of the policy.
    enum Condition: Sendable, Equatable {
        /// `{"name": "value"}`: the field must equal `value`.
        case equals(String, String)
        /// `["starts-with", "$name", "prefix"]`.
        case startsWith(String, String)
        /// `["content-length-range", min, max]`: the file's size in bytes, inclusive.
        case contentLengthRange(Int64, Int64)
    }

    /// When the policy expires, in epoch seconds.
    var expiration: Int64
    /// The conditions, in order.
    var conditions: [Condition]

    /// `{"expiration": "2026-12-01T10:49:00Z", "conditions": [...]}` in UTF-8.
    var json: [UInt8] {
        var output = [UInt8]()
        output.append(contentsOf: #"{"expiration": "#.utf8)
        Self.appendString(ISO8601Timestamp.string(epochSeconds: expiration), to: &output)
        output.append(contentsOf: #", "conditions": ["#.utf8)
        for (index, condition) in conditions.enumerated() {
            if index > 0 { output.append(contentsOf: ", ".utf8) }
            switch condition {
            case .equals(let name, let value):
                output.append(UInt8(ascii: "{"))
                Self.appendString(name, to: &output)
                output.append(contentsOf: ": ".utf8)
                Self.appendString(value, to: &output)
                output.append(UInt8(ascii: "}"))
            case .startsWith(let name, let prefix):
                output.append(contentsOf: #"["starts-with", "#.utf8)
                Self.appendString("$" + name, to: &output)
                output.append(contentsOf: ", ".utf8)
                Self.appendString(prefix, to: &output)
                output.append(UInt8(ascii: "]"))
            case .contentLengthRange(let minimum, let maximum):
                output.append(contentsOf: #"["content-length-range", \#(minimum), \#(maximum)]"#.utf8)
            }
        }
        output.append(contentsOf: "]}".utf8)
        return output
    }

    /// Writes `text` as a JSON string: quotes, `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, and
    /// `\uXXXX` (UTF-16, lower-case hex) for every other character outside `0x20...0x7e`.
    static func appendString(_ text: String, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        func appendEscaped(_ unit: UInt16) {
            output.append(contentsOf: #"\u"#.utf8)
            for shift in [12, 8, 4, 0] { output.append(hex[Int(unit >> UInt16(shift) & 0xf)]) }
        }
        output.append(UInt8(ascii: "\""))
        for unit in text.utf16 {
            switch unit {
            case 0x22: output.append(contentsOf: #"\""#.utf8)
            case 0x5c: output.append(contentsOf: #"\\"#.utf8)
            case 0x0a: output.append(contentsOf: #"\n"#.utf8)
            case 0x0d: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0c: output.append(contentsOf: #"\f"#.utf8)
            case 0x20...0x7e: output.append(UInt8(unit))
            default: appendEscaped(unit)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
