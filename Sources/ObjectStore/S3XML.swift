/// Just enough XML to read S3's answers: the root element's name and an element's text. Pure.
///
/// S3 bodies are flat, namespace-free in their element names and small, so a scan for
/// `<Name>` ... `</Name>` suffices; entities are decoded. Not a general XML parser. Public because
/// other AWS answers have the same shape (STS's, read by CloudCredentials).
public enum S3XML {
    /// The name of the root element, skipping the XML declaration, comments and whitespace.
    public static func rootElementName(_ body: [UInt8]) -> String? {
        var index = 0
        while index < body.count {
            let byte = body[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n") || (index == 0 && body.starts(with: [0xef, 0xbb, 0xbf]))
            {
                index += byte == 0xef ? 3 : 1
                continue
            }
            guard byte == UInt8(ascii: "<"), index + 1 < body.count else { return nil }
            let next = body[index + 1]
            if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") {
                // A declaration, comment or doctype: skip past its closing '>'.
                let close: [UInt8] =
                    body[index...].starts(with: Array("<!--".utf8)) ? Array("-->".utf8) : [UInt8(ascii: ">")]
                guard let end = find(close, in: body, from: index + 2) else { return nil }
                index = end + close.count
                continue
            }
            var end = index + 1
            while end < body.count, isNameCharacter(body[end]) { end += 1 }
            guard end > index + 1 else { return nil }
            return String(decoding: body[(index + 1)..<end], as: UTF8.self)
        }
        return nil
    }

    /// The decoded text of the first element named `name`, or nil.
    public static func firstElementText(_ name: String, in body: [UInt8]) -> String? {
        let open = Array("<\(name)".utf8)
        let close = Array("</\(name)>".utf8)
        var from = 0
        while let start = find(open, in: body, from: from) {
            var cursor = start + open.count
            guard cursor < body.count else { return nil }
            if body[cursor] == UInt8(ascii: ">") || body[cursor] == UInt8(ascii: " ") {
                while cursor < body.count, body[cursor] != UInt8(ascii: ">") { cursor += 1 }
                guard cursor < body.count, body[cursor - 1] != UInt8(ascii: "/") else { return "" }
                guard let end = find(close, in: body, from: cursor + 1) else { return nil }
                return decodeEntities(body[(cursor + 1)..<end])
            }
            from = start + 1
        }
        return nil
    }

    /// The S3 error code of an `<Error>` body: a short token such as `NoSuchKey`, else nil.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard rootElementName(body) == "Error", let code = firstElementText("Code", in: body) else { return nil }
        guard !code.isEmpty, code.utf8.count <= 64, code.utf8.allSatisfy(isNameCharacter) else { return nil }
        return code
    }

    /// Text with the five predefined entities and numeric character references decoded.
    static func decodeEntities(_ text: ArraySlice<UInt8>) -> String {
        guard text.contains(UInt8(ascii: "&")) else { return String(decoding: text, as: UTF8.self) }
        var output = [UInt8]()
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "&"), let semicolon = text[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) {
                let entity = String(decoding: text[(index + 1)..<semicolon], as: UTF8.self)
                var scalar: Unicode.Scalar?
                switch entity {
                case "quot": scalar = "\""
                case "amp": scalar = "&"
                case "lt": scalar = "<"
                case "gt": scalar = ">"
                case "apos": scalar = "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    } else if entity.hasPrefix("#") {
                        scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                    }
                }
                if let scalar {
                    output.append(contentsOf: String(Character(scalar)).utf8)
                    index = semicolon + 1
                    continue
                }
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Letters, digits, `-`, `_`, `.` and `:`: element names and error codes.
    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var start = from
        while start <= haystack.count - needle.count {
            if haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return start
            }
            start += 1
        }
        return nil
    }
}
