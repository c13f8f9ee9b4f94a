/// Names the common non-image documents, so that a refusal says what the object is (internal).
///
/// Checked only after every image signature failed: PDF (`%PDF-`), ZIP (`PK` 03 04, 05 06 or 07 08),
/// markup (after an optional UTF-8 byte order mark and white space, a `<`), text (no binary byte, in the
/// sense of the WHATWG MIME Sniffing standard, in the text window), else unknown.
enum DocumentSniffer {
    /// The refusal for `bytes`, which match no image signature.
    static func refusal(_ bytes: UnsafeRawBufferPointer, limits: ImageProbeLimits) -> ImageRefusal {
        let count = bytes.count
        /// Whether `bytes` start with `prefix`.
        func starts(_ prefix: [UInt8]) -> Bool {
            prefix.count <= count && prefix.indices.allSatisfy { bytes[$0] == prefix[$0] }
        }
        if starts([0x25, 0x50, 0x44, 0x46, 0x2D]) { return .pdf }  // %PDF-
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) || starts([0x50, 0x4B, 0x07, 0x08]) {
            return .zip
        }
        if starts([0xFE, 0xFF]) || starts([0xFF, 0xFE]) { return .text }
        var offset = starts([0xEF, 0xBB, 0xBF]) ? 3 : 0
        while offset < count, isSpace(bytes[offset]) { offset += 1 }
        if offset < count, bytes[offset] == 0x3C { return .markup(MarkupSniffer.kind(bytes, from: offset)) }
        for index in 0..<min(count, limits.textWindow) where isBinary(bytes[index]) { return .unknownSignature }
        return .text
    }

    /// HTML white space: tab, line feed, form feed, carriage return, space.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D || byte == 0x20
    }

    /// A binary data byte (WHATWG MIME Sniffing, "binary data byte"): 00-08, 0B, 0E-1A, 1C-1F.
    static func isBinary(_ byte: UInt8) -> Bool {
        byte <= 0x08 || byte == 0x0B || (0x0E...0x1A).contains(byte) || (0x1C...0x1F).contains(byte)
    }
}
