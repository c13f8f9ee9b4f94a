import Crypto

/// What a client says of the object it is about to upload, as a front door read it from its request (a
/// JSON body's members or a query's parameters): each of the size and the two digests absent, or given
/// as sent. `UploadCatalog.checkDeclared` checks it against the type.
public struct DeclaredInput: Sendable, Equatable {
    /// A declared size as sent.
    public enum Size: Sendable, Equatable {
        /// A whole number of bytes (negative ones are refused by the check, not here).
        case bytes(Int64)
        /// Not a whole number (a JSON string or fraction, a query value with other characters).
        case malformed
        /// Digits beyond any 64-bit number: over every limit.
        case tooLarge
    }

    /// The size, if sent.
    public var size: Size?
    /// The SHA-256 of the bytes as sent (the check wants canonical base64 of 32 bytes), if sent.
    public var checksumSHA256: String?
    /// The MD5 of the bytes as sent (canonical base64 of 16 bytes), if sent.
    public var contentMD5: String?

    /// Nothing declared.
    public static let none = DeclaredInput()

    /// A declaration from its members.
    public init(size: Size? = nil, checksumSHA256: String? = nil, contentMD5: String? = nil) {
        self.size = size
        self.checksumSHA256 = checksumSHA256
        self.contentMD5 = contentMD5
    }

    /// A size sent as text (a query parameter): an optional minus sign and digits.
    public static func size(text: String) -> Size {
        var digits = Substring(text)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return .malformed }
        guard let value = Int64(digits) else { return negative ? .malformed : .tooLarge }
        return .bytes(negative ? -value : value)
    }
}

/// What a client declared of its object, checked (`UploadCatalog.checkDeclared`): kept on the intent,
/// signed into the URL where storage checks it (`Issuer.digestHeaders`), proven at confirmation.
public struct DeclaredContent: Sendable, Equatable {
    /// The size in bytes, if declared.
    public var size: Int64?
    /// The SHA-256 of the bytes, canonical base64 of 32 bytes, if declared.
    public var checksumSHA256: String?
    /// The MD5 of the bytes, canonical base64 of 16 bytes, if declared.
    public var contentMD5: String?

    /// Nothing declared.
    public static let none = DeclaredContent()

    /// S3's largest object, the largest size a client may declare: 5 TiB.
    public static let maxSize: Int64 = 5 * 1024 * 1024 * 1024 * 1024

    /// A declaration from its parts (checked by the caller).
    public init(size: Int64? = nil, checksumSHA256: String? = nil, contentMD5: String? = nil) {
        self.size = size
        self.checksumSHA256 = checksumSHA256
        self.contentMD5 = contentMD5
    }

    /// Whether a digest was declared.
    public var hasDigest: Bool { checksumSHA256 != nil || contentMD5 != nil }
}

/// A digest a client may declare, and the member that carries it.
public enum DeclaredDigest: Sendable, Equatable {
    /// SHA-256, `checksumSHA256`: base64 of 32 bytes.
    case sha256
    /// MD5, `contentMD5`: base64 of 16 bytes.
    case md5

    /// The member's name in every route (`checksumSHA256`, `contentMD5`).
    public var member: String {
        switch self {
        case .sha256: return "checksumSHA256"
        case .md5: return "contentMD5"
        }
    }

    /// The digest's length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: return 32
        case .md5: return 16
        }
    }

    /// The algorithm's name as messages write it.
    public var algorithm: String {
        switch self {
        case .sha256: return "SHA-256"
        case .md5: return "MD5"
        }
    }

    /// Why `text` is not this digest's canonical base64, in words a client can act on; nil when it is.
    public func problem(with text: String) -> String? {
        if text.utf8.count == byteCount * 2, Hex.decode(text) != nil {
            return "it is hex: send the same \(byteCount) bytes in base64"
        }
        if let count = Base64.decodedCount(text) {
            guard count != byteCount else { return nil }
            return "it decodes to \(count) bytes"
        }
        if text.contains(" "), Base64.decode(String(text.map { $0 == " " ? "+" : $0 })) != nil {
            return "it holds a space (a + in a query must be sent as %2B)"
        }
        return "it is not base64"
    }
}
