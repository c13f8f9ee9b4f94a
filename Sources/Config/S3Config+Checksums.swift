/// What storage itself checks of the digests a client declares for an upload, and so what a presigned
/// URL signs (docs/object-store.md, "Integrity"): a header storage checks makes a wrong body fail at
/// the PUT (`BadDigest`); one it ignores guarantees nothing, so it is not signed, and the digest is
/// proven at confirmation instead.
public struct StoreChecksums: Sendable, Equatable {
    /// Storage checks `Content-MD5` (a mismatch is `BadDigest`).
    public var contentMD5: Bool
    /// Storage checks `x-amz-checksum-sha256`, keeps it with the object and returns it to a HEAD that
    /// asks (`x-amz-checksum-mode: ENABLED`).
    public var sha256: Bool
    /// Storage takes one checksum per request (Cloudflare R2 refuses `Content-MD5` beside an
    /// `x-amz-checksum-*`): when both are declared, only the SHA-256 is signed.
    public var onePerRequest: Bool

    /// The setting's names.
    public static let names = ["content-md5", "sha256", "none"]

    /// What storage checks.
    public init(contentMD5: Bool, sha256: Bool, onePerRequest: Bool = false) {
        self.contentMD5 = contentMD5
        self.sha256 = sha256
        self.onePerRequest = onePerRequest
    }

    /// What `provider`'s storage checks, by the sources docs/object-store.md cites: AWS S3 and MinIO
    /// both digests; Cloudflare R2 both, one per request; Ceph RGW (Pacific 16.2, measured), Google Cloud
    /// Storage (MD5 and CRC32C only) and NCP `Content-MD5` only; `custom` `Content-MD5` only (every S3
    /// implementation above checks it; `s3.checksums` says otherwise).
    public static func preset(_ provider: S3Config.Provider) -> StoreChecksums {
        switch provider {
        case .aws, .minio: return StoreChecksums(contentMD5: true, sha256: true)
        case .r2: return StoreChecksums(contentMD5: true, sha256: true, onePerRequest: true)
        case .ceph, .gcs, .ncp, .custom: return StoreChecksums(contentMD5: true, sha256: false)
        }
    }
}

extension S3Config {
    /// What storage checks: `s3.checksums` when given (`none`: nothing), else the provider preset's;
    /// R2's one-checksum rule holds either way.
    public var storeChecksums: StoreChecksums {
        guard !checksums.isEmpty else { return .preset(provider) }
        return StoreChecksums(
            contentMD5: checksums.contains("content-md5"), sha256: checksums.contains("sha256"),
            onePerRequest: provider == .r2)
    }
}
