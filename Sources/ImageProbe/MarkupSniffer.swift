/// Tells HTML, SVG and XML apart by the prolog and the first element (internal).
///
/// From the first `<`: skips white space, processing instructions (noting `<?xml`), comments and other
/// `<!` declarations; a doctype named `html` or `svg` decides; otherwise the first element does: `svg`
/// (with or without a namespace prefix) is SVG, an element browsers sniff as HTML (WHATWG MIME
/// Sniffing, 7.1: html, head, script, iframe, h1, div, font, table, a, style, title, b, body, br, p)
/// is HTML; anything else is XML after an XML declaration, else other markup. Every step moves forward,
/// so the scan is linear in the bytes given.
enum MarkupSniffer {
    /// The element names WHATWG sniffing treats as the start of HTML.
    static let htmlElements: Set<String> = [
        "html", "head", "script", "iframe", "h1", "div", "font", "table", "a", "style", "title", "b", "body", "br", "p",
    ]

    /// The kind of markup in `bytes`, where `bytes[start]` is `<`.
    static func kind(_ bytes: UnsafeRawBufferPointer, from start: Int) -> ImageRefusal.MarkupKind {
        let count = bytes.count
        var offset = start
        var declaration = false
        /// Whether `bytes[at...]` starts with `text` (lower-case ASCII), ignoring ASCII case.
        func starts(_ text: StaticString, at: Int) -> Bool {
            text.withUTF8Buffer { pattern in
                guard pattern.count <= count - at else { return false }
                for index in 0..<pattern.count where lower(bytes[at + index]) != pattern[index] { return false }
                return true
            }
        }
        /// The offset after the first `text` at or after `from`, or nil.
        func after(_ text: StaticString, from: Int) -> Int? {
            let first = text.withUTF8Buffer { $0[0] }
            var at = from
            while at < count {
                if bytes[at] == first, starts(text, at: at) { return at + text.utf8CodeUnitCount }
                at += 1
            }
            return nil
        }
        /// The lower-cased name at `at` (letters, digits, `-`, `_`, `.`, `:`), at most 64 bytes.
        func name(at: Int) -> String {
            var end = at
            while end < count, end - at < 64, isNameByte(bytes[end]) { end += 1 }
            return String(decoding: (at..<end).map { lower(bytes[$0]) }, as: UTF8.self)
        }
        while true {
            while offset < count, DocumentSniffer.isSpace(bytes[offset]) { offset += 1 }
            guard offset < count, bytes[offset] == 0x3C else { break }
            if starts("<?", at: offset) {
                if starts("<?xml", at: offset) { declaration = true }
                guard let next = after("?>", from: offset + 2) else { break }
                offset = next
            } else if starts("<!--", at: offset) {
                guard let next = after("-->", from: offset + 4) else { break }
                offset = next
            } else if starts("<!doctype", at: offset) {
                var at = offset + 9
                while at < count, DocumentSniffer.isSpace(bytes[at]) { at += 1 }
                let doctype = name(at: at)
                if doctype == "html" { return .html }
                if doctype == "svg" || doctype.hasSuffix(":svg") { return .svg }
                guard let next = after(">", from: at) else { break }
                offset = next
            } else if starts("<!", at: offset) {
                guard let next = after(">", from: offset + 2) else { break }
                offset = next
            } else {
                let element = name(at: offset + 1)
                if element == "svg" || element.hasSuffix(":svg") { return .svg }
                if htmlElements.contains(element) { return .html }
                break
            }
        }
        return declaration ? .xml : .other
    }

    /// `byte` with ASCII upper case folded to lower case.
    static func lower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `byte` may appear in an element or doctype name (ASCII subset).
    static func isNameByte(_ byte: UInt8) -> Bool {
        let folded = lower(byte)
        return (0x61...0x7A).contains(folded) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
            || byte == 0x2E || byte == 0x3A
    }
}
