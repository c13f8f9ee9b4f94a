import Crypto

/// A position in an owner's newest-first record list: the last record of a page.
///
/// The next page holds the records strictly after it in (createdAtMs desc, id desc) order. Clients see only
/// `token`, an opaque URL-safe string (unpadded base64url of `1:<createdAtMs>:<id>`).
public struct RecordCursor: Sendable, Equatable {
    /// The creation time of the last record returned.
    public var createdAtMs: Int64
    /// The id of the last record returned.
    public var id: String

    /// The longest token accepted, so a hostile `cursor=` parameter costs nothing.
    static let maxTokenLength = 200

    /// The cursor just after `record`.
    public init(after record: ImageRecord) {
        self.init(createdAtMs: record.createdAtMs, id: record.id)
    }

    /// A cursor at (createdAtMs, id).
    public init(createdAtMs: Int64, id: String) {
        self.createdAtMs = createdAtMs
        self.id = id
    }

    /// The opaque, URL-safe form handed to clients.
    public var token: String {
        Base64.encodeURL(Array("1:\(createdAtMs):\(id)".utf8))
    }

    /// Decodes a token made by `token`; nil for anything else (garbage, a wrong version, a bad id).
    public init?(token: String) {
        guard token.utf8.count <= Self.maxTokenLength, let bytes = Base64.decodeURL(token) else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual("1".utf8) else { return nil }
        let digits = parts[1]
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let idBytes = parts[2]
        guard !idBytes.isEmpty, idBytes.count <= 64, idBytes.allSatisfy(Self.isIdByte) else { return nil }
        var value: Int64 = 0
        for digit in digits { value = value * 10 + Int64(digit - 0x30) }
        self.init(createdAtMs: value, id: String(decoding: idBytes, as: UTF8.self))
    }

    /// Letters, digits, `-` and `_`: what record ids are made of.
    private static func isIdByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
