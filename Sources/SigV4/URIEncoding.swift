/// SigV4's URI encoding (RFC 3986 section 2.3): the unreserved characters `A-Z a-z 0-9 - . _ ~`
/// stay, every other byte of the UTF-8 form becomes `%XX` in upper case, once. A space is `%20`,
/// never `+`. In object-key paths `/` stays too.
public enum URIEncoding {
    /// Upper-case digits for `%XX`.
    private static let digits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// For each byte value, whether it is unreserved.
    private static let unreserved: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        return Endpoint.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `text` encoded; `/` is kept when `keepingSlash` (for paths) and encoded as `%2F` otherwise.
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        var output = [UInt8]()
        append(text, keepingSlash: keepingSlash, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Writes `text` encoded to `output`.
    static func append(_ text: String, keepingSlash: Bool, to output: inout some ByteSink) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable {
            append(bytes: $0, keepingSlash: keepingSlash, to: &output)
        }
        if done == nil {
            Array(text.utf8).withUnsafeBufferPointer { append(bytes: $0, keepingSlash: keepingSlash, to: &output) }
        }
    }

    /// The most bytes `append` writes for `text`.
    static func maximumEncodedCount(_ text: String) -> Int { text.utf8.count * 3 }

    /// Writes `bytes` encoded to `output`: runs of kept bytes in one copy, others as `%XX`.
    static func append(bytes: UnsafeBufferPointer<UInt8>, keepingSlash: Bool, to output: inout some ByteSink) {
        unreserved.withUnsafeBufferPointer { keep in
            digits.withUnsafeBufferPointer { digits in
                var runStart = 0
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if keep[Int(byte)] || (keepingSlash && byte == UInt8(ascii: "/")) { continue }
                    if runStart < index { output.write(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                    output.write(UInt8(ascii: "%"))
                    output.write(digits[Int(byte >> 4)])
                    output.write(digits[Int(byte & 0x0f)])
                    runStart = index + 1
                }
                if runStart < bytes.count { output.write(UnsafeBufferPointer(rebasing: bytes[runStart...])) }
            }
        }
    }
}
