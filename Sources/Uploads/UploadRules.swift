/// The small pure rules of keys and media types every part of the lifecycle shares.
public enum UploadRules {
    /// `[0-9]{1,19}` (a chat room id).
    public static func isNumericId(_ s: String) -> Bool {
        let u = s.utf8
        return !u.isEmpty && u.count <= 19 && u.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The media type of a Content-Type value, lower-cased, without parameters; nil when empty.
    public static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        var media = value.split(separator: ";", maxSplits: 1).first ?? ""
        while let f = media.first, f == " " || f == "\t" { media = media.dropFirst() }
        while let l = media.last, l == " " || l == "\t" { media = media.dropLast() }
        return media.isEmpty ? nil : media.lowercased()
    }

    /// The file extension used in keys for a content type.
    public static func fileExtension(for contentType: String) -> String {
        switch contentType {
        case "image/jpeg": return "jpg"
        case "image/png": return "png"
        case "image/heic": return "heic"
        case "image/webp": return "webp"
        case "image/gif": return "gif"
        default:
            let sub = contentType.split(separator: "/").last.map(String.init) ?? "bin"
            return sub.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) && !sub.isEmpty ? sub : "bin"
        }
    }

    /// The longest slug of a file name, in bytes.
    public static let maxSlugBytes = 64

    /// The file name as a key value (`{filename}`): the last path segment without its extension, lower
    /// case, every run of characters outside `[a-z0-9_-]` (a `/`, `.`, control character, space,
    /// non-ASCII) as one `-`, no `-` at either end, at most `maxSlugBytes` bytes; `file` when nothing is left.
    public static func slug(_ filename: String) -> String {
        var name = Substring(filename)
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        var out: [UInt8] = []
        out.reserveCapacity(min(name.utf8.count, maxSlugBytes))
        var pendingDash = false
        for b in name.utf8 {
            let lower = (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b + 32 : b
            let safe =
                (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (lower >= UInt8(ascii: "0") && lower <= UInt8(ascii: "9")) || lower == UInt8(ascii: "_")
            if safe {
                if pendingDash && !out.isEmpty {
                    if out.count + 1 >= maxSlugBytes { break }
                    out.append(UInt8(ascii: "-"))
                }
                pendingDash = false
                if out.count >= maxSlugBytes { break }
                out.append(lower)
            } else {
                pendingDash = true
            }
        }
        return out.isEmpty ? "file" : String(decoding: out, as: UTF8.self)
    }
}

extension UploadRules {
    /// The largest metadata object a record keeps, serialised.
    public static let maxMetadataBytes = 16 * 1024
}
