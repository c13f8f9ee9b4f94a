import Foundation

/// What a client declares of the file it is about to upload, so that the server keeps it with the URL:
/// the size (signed as `Content-Length`), the SHA-256 and MD5 of the bytes (base64; signed where the
/// server's storage checks them, proven by the server before it records the upload).
public struct Declaration: Sendable, Equatable {
    /// The size in bytes.
    public var size: Int64?
    /// The SHA-256 of the bytes, base64.
    public var checksumSHA256: String?
    /// The MD5 of the bytes, base64.
    public var contentMD5: String?

    /// A declaration of the given members (none by default).
    public init(size: Int64? = nil, checksumSHA256: String? = nil, contentMD5: String? = nil) {
        self.size = size
        self.checksumSHA256 = checksumSHA256
        self.contentMD5 = contentMD5
    }

    /// The members as query parameters, in the server's order (`size`, `contentMD5`, `checksumSHA256`).
    var members: [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        if let size { out.append(("size", String(size))) }
        if let contentMD5 { out.append(("contentMD5", contentMD5)) }
        if let checksumSHA256 { out.append(("checksumSHA256", checksumSHA256)) }
        return out
    }

    /// The declaration of `file`: its size and, with `checksums`, the digests of its bytes (read once,
    /// 1 MiB at a time).
    public static func of(file: URL, checksums: Bool = true) throws -> Declaration {
        guard checksums else { return Declaration(size: try PresignClient.fileSize(file)) }
        let (sha256, md5, size) = try Digests.of(file: file)
        return Declaration(size: size, checksumSHA256: sha256, contentMD5: md5)
    }
}
