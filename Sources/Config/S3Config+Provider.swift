extension S3Config {
    /// The storage services presignd has presets for.
    public enum Provider: String, Sendable, CaseIterable {
        /// Amazon S3, any region: `https://s3.{region}.amazonaws.com`, virtual-hosted (dotted
        /// buckets path-style: the wildcard certificate does not match them).
        case aws
        /// MinIO: path-style, `us-east-1`; the endpoint is the operator's (default `http://127.0.0.1:9000`).
        case minio
        /// Ceph RADOS Gateway: path-style, `us-east-1`; the endpoint is the operator's.
        case ceph
        /// Cloudflare R2: `https://{accountId}.r2.cloudflarestorage.com`, region `auto`, path-style.
        case r2
        /// Naver Cloud Object Storage: `https://kr.object.ncloudstorage.com`, `kr-standard`, path-style.
        case ncp
        /// Google Cloud Storage's S3 interoperability (HMAC keys): `https://storage.googleapis.com`,
        /// region `auto`, path-style.
        case gcs
        /// No preset: `s3.endpoint`, `s3.region` and `s3.addressing` as configured (the default).
        case custom
    }

    /// The credential providers of the chain, by their `s3.credentialSources` names, in the
    /// default order.
    public enum CredentialSource: String, Sendable, CaseIterable {
        /// Static keys: `PRESIGN_S3_*` (and `_FILE`), else `AWS_ACCESS_KEY_ID` and friends.
        case environment
        /// EKS IRSA: `AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN` through STS.
        case webIdentity
        /// `~/.aws/credentials` and `~/.aws/config` (static keys of a profile).
        case sharedFiles
        /// ECS task roles and EKS Pod Identity (`AWS_CONTAINER_CREDENTIALS_*`).
        case container
        /// EC2 instance metadata (IMDSv2).
        case imds
    }

    /// The endpoint, region and addressing a provider's preset gives, each nil where the preset
    /// leaves the setting to the operator (or to the built-in default).
    public struct Preset: Sendable, Equatable {
        /// `http(s)://host[:port]`.
        public var endpoint: String?
        /// The signing region.
        public var region: String?
        /// Where the bucket goes.
        public var addressing: Addressing?
    }

    /// The preset of `provider` for `region` (the AWS endpoint is regional) and `accountId` (R2).
    public static func preset(_ provider: Provider, region: String, accountId: String) -> Preset {
        switch provider {
        case .aws:
            let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
            return Preset(endpoint: "https://s3.\(region).\(suffix)", region: nil, addressing: .virtual)
        case .minio, .ceph:
            return Preset(endpoint: nil, region: "us-east-1", addressing: .path)
        case .r2:
            return Preset(
                endpoint: accountId.isEmpty ? nil : "https://\(accountId).r2.cloudflarestorage.com", region: "auto",
                addressing: .path)
        case .ncp:
            return Preset(endpoint: "https://kr.object.ncloudstorage.com", region: "kr-standard", addressing: .path)
        case .gcs:
            return Preset(endpoint: "https://storage.googleapis.com", region: "auto", addressing: .path)
        case .custom:
            return Preset(endpoint: nil, region: nil, addressing: nil)
        }
    }

    /// The credential sources in chain order, unknown names dropped (the validator reports them).
    public var chainSources: [CredentialSource] {
        credentialSources.compactMap(CredentialSource.init(rawValue:))
    }
}
