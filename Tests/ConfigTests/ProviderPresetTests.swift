import Config
import Testing

/// `s3.provider` presets: each sets endpoint, region and addressing, but only where no file,
/// variable or flag did.
@Suite struct ProviderPresetTests {
    /// The loaded `s3` section for `environment` (and `file` as the config file, when given).
    static func s3(_ environment: [String: String], file: String? = nil) throws -> S3Config {
        let arguments = file == nil ? [] : ["--config", "/p.json"]
        let files = file.map { ["/p.json": $0] } ?? [:]
        let result = load(arguments, environment: environment, files: files)
        return try #require(runConfig(result), "\(result)").s3
    }

    @Test(
        "each preset's endpoint, region and addressing",
        arguments: [
            ("aws", "https://s3.us-east-1.amazonaws.com", "us-east-1", S3Config.Addressing.virtual),
            ("minio", "http://127.0.0.1:9000", "us-east-1", .path),
            ("ceph", "http://127.0.0.1:9000", "us-east-1", .path),
            ("ncp", "https://kr.object.ncloudstorage.com", "kr-standard", .path),
            ("gcs", "https://storage.googleapis.com", "auto", .path),
            ("custom", "http://127.0.0.1:9000", "us-east-1", .path),
        ])
    func presets(provider: String, endpoint: String, region: String, addressing: S3Config.Addressing) throws {
        let s3 = try Self.s3(["PRESIGN_S3_PROVIDER": provider])
        #expect(s3.provider.rawValue == provider)
        #expect(s3.endpoint == endpoint)
        #expect(s3.region == region)
        #expect(s3.addressing == addressing)
    }

    @Test func awsFollowsTheRegionAndChinaHasItsOwnDomain() throws {
        let seoul = try Self.s3(["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "ap-northeast-2"])
        #expect(seoul.endpoint == "https://s3.ap-northeast-2.amazonaws.com" && seoul.region == "ap-northeast-2")
        let beijing = try Self.s3(["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "cn-north-1"])
        #expect(beijing.endpoint == "https://s3.cn-north-1.amazonaws.com.cn")
        let fromFile = try Self.s3([:], file: #"{"s3":{"provider":"aws","region":"eu-west-1"}}"#)
        #expect(fromFile.endpoint == "https://s3.eu-west-1.amazonaws.com")
    }

    @Test func whatTheOperatorSetsWinsEvenWhenItEqualsTheDefault() throws {
        // `path` is also the built-in default: set explicitly, it still beats aws's `virtual`.
        let path = try Self.s3(["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_ADDRESSING": "path"])
        #expect(path.addressing == .path && path.endpoint == "https://s3.us-east-1.amazonaws.com")
        let file = try Self.s3(
            [:], file: #"{"s3":{"provider":"ncp","endpoint":"https://kr.object.private-ncloudstorage.com"}}"#)
        #expect(file.endpoint == "https://kr.object.private-ncloudstorage.com" && file.region == "kr-standard")
        let region = try Self.s3(["PRESIGN_S3_PROVIDER": "gcs", "PRESIGN_S3_REGION": "us-central1"])
        #expect(region.region == "us-central1" && region.endpoint == "https://storage.googleapis.com")
    }

    @Test func r2NeedsItsAccountUnlessTheEndpointIsGiven() throws {
        let r2 = try Self.s3(["PRESIGN_S3_PROVIDER": "r2", "PRESIGN_S3_ACCOUNT_ID": "0123456789abcdef0123456789abcdef"])
        #expect(r2.endpoint == "https://0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com")
        #expect(r2.region == "auto" && r2.addressing == .path)
        #expect(
            problems(load(environment: ["PRESIGN_S3_PROVIDER": "r2"])).map(\.keyPath) == ["s3.accountId"])
        #expect(
            problems(load(environment: ["PRESIGN_S3_PROVIDER": "r2"])).first?.message.contains(
                "is required with s3.provider r2")
                == true)
        let given = try Self.s3(["PRESIGN_S3_PROVIDER": "r2", "PRESIGN_S3_ENDPOINT": "https://r2.example.net"])
        #expect(given.endpoint == "https://r2.example.net" && given.region == "auto")
        #expect(problems(load(environment: ["PRESIGN_S3_ACCOUNT_ID": "Not/Hex"])).map(\.keyPath) == ["s3.accountId"])
    }

    @Test func anUnknownProviderIsRefusedWithTheNames() {
        let found = problems(load(environment: ["PRESIGN_S3_PROVIDER": "bogus"]))
        #expect(found.map(\.keyPath) == ["s3.provider"])
        #expect(found.first?.message.contains("aws, minio, ceph, r2, ncp, gcs, custom") == true)
    }

    @Test func theNotesSayClientPIsPathStyleWhateverTheAddressing() throws {
        let config = try #require(runConfig(load(environment: ["PRESIGN_S3_PROVIDER": "aws"])))
        let note = try #require(config.notes.first { $0.contains("client P's contract") })
        #expect(note.contains("always path-style") && note.contains("(virtual, for every other route)"))
        #expect(config.notes.contains { $0.hasPrefix("s3.provider aws: endpoint https://s3.us-east-1.amazonaws.com") })
        let off = try #require(runConfig(load(environment: ["PRESIGN_PRESIGN_SERVE_CLIENT_P": "false"])))
        #expect(!off.notes.contains { $0.contains("client P") })
    }

    @Test func credentialSourcesAreChecked() {
        #expect(
            problems(load(environment: ["PRESIGN_S3_CREDENTIAL_SOURCES": "environment,imds,imds"])).map(\.keyPath) == [
                "s3.credentialSources"
            ])
        #expect(
            problems(load(environment: ["PRESIGN_S3_CREDENTIAL_SOURCES": "environment,ecs"])).first?.message.contains(
                "must hold only environment, webIdentity, sharedFiles, container, imds") == true)
        #expect(
            problems(load(environment: ["PRESIGN_S3_CONNECT_HOST": "127.0.0.1:80"])).map(\.keyPath) == [
                "s3.connectHost"
            ])
        #expect(problems(load(environment: ["PRESIGN_S3_CONNECT_HOST": "127.0.0.1"])).isEmpty)
    }
}
