import Config
import Crypto
import Foundation
import SigV4
import TestSupport
import Testing

@testable import App

/// The URLs each `s3.provider` preset gives, through the server's own signers: their shape
/// (host, path, region in the credential scope) for every preset, and botocore's signature for the
/// AWS variants (virtual-hosted, and a dotted bucket forced to path-style).
@Suite struct PresetSigningTests {
    static let credentials = Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
    static let now: Int64 = 1_795_942_771

    /// The signers of the configuration `environment` loads.
    static func signers(_ environment: [String: String]) throws -> (S3Config, Application.Signers) {
        var env = environment
        env["PRESIGN_S3_ACCESS_KEY_ID"] = "AKIAIOSFODNN7EXAMPLE"
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        guard case .success(.run(let config)) = ConfigLoader.load(arguments: [], environment: env) else {
            throw TestFailure("the configuration does not load: \(environment)")
        }
        return (config.s3, try Application.makeSigners(config.s3, credentials: credentials))
    }

    /// A 600-second PUT of `key` in `bucket` by `signer`.
    static func put(_ signer: RotatingPresigner, bucket: String, key: String = "profile/1/a b.jpg") throws -> String {
        try signer.presign(PresignRequest(method: "PUT", bucket: bucket, key: key, expires: 600), now: now).url
    }

    @Test(
        "the URL shape of each preset (configured signer, and client P's always path-style)",
        arguments: [
            (
                ["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "ap-northeast-2"], "uploads",
                "https://uploads.s3.ap-northeast-2.amazonaws.com/profile/1/a%20b.jpg?",
                "https://s3.ap-northeast-2.amazonaws.com/uploads/profile/1/a%20b.jpg?", "ap-northeast-2"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "ap-northeast-2"], "my.dotted.bucket",
                "https://s3.ap-northeast-2.amazonaws.com/my.dotted.bucket/profile/1/a%20b.jpg?",
                "https://s3.ap-northeast-2.amazonaws.com/my.dotted.bucket/profile/1/a%20b.jpg?", "ap-northeast-2"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "r2", "PRESIGN_S3_ACCOUNT_ID": "0123456789abcdef0123456789abcdef"], "uploads",
                "https://0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com/uploads/profile/1/a%20b.jpg?",
                "https://0123456789abcdef0123456789abcdef.r2.cloudflarestorage.com/uploads/profile/1/a%20b.jpg?",
                "auto"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "ncp"], "uploads",
                "https://kr.object.ncloudstorage.com/uploads/profile/1/a%20b.jpg?",
                "https://kr.object.ncloudstorage.com/uploads/profile/1/a%20b.jpg?", "kr-standard"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "gcs"], "uploads",
                "https://storage.googleapis.com/uploads/profile/1/a%20b.jpg?",
                "https://storage.googleapis.com/uploads/profile/1/a%20b.jpg?", "auto"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "minio", "PRESIGN_S3_ENDPOINT": "https://minio.example.net"], "uploads",
                "https://minio.example.net/uploads/profile/1/a%20b.jpg?",
                "https://minio.example.net/uploads/profile/1/a%20b.jpg?", "us-east-1"
            ),
            (
                ["PRESIGN_S3_PROVIDER": "ceph", "PRESIGN_S3_ENDPOINT": "http://rgw.internal:7480"], "uploads",
                "http://rgw.internal:7480/uploads/profile/1/a%20b.jpg?",
                "http://rgw.internal:7480/uploads/profile/1/a%20b.jpg?", "us-east-1"
            ),
        ])
    func shapes(environment: [String: String], bucket: String, configured: String, clientP: String, region: String)
        throws
    {
        var env = environment
        env["PRESIGN_S3_BUCKET"] = bucket
        let (_, signers) = try Self.signers(env)
        let url = try Self.put(signers.configured, bucket: bucket)
        #expect(url.hasPrefix(configured), "\(url)")
        #expect(url.contains("X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261129%2F\(region)%2Fs3%2Faws4_request&"))
        #expect(try Self.put(signers.pathStyle, bucket: bucket).hasPrefix(clientP))
    }

    @Test("AWS preset: virtual-hosted and dotted-bucket path-style URLs carry botocore's signatures")
    func awsMatchesBotocore() throws {
        var cases: [(url: String, case: BotocorePresign.Case)] = []
        for bucket in ["uploads", "my.dotted.bucket"] {
            let (s3, signers) = try Self.signers([
                "PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "eu-west-1", "PRESIGN_S3_BUCKET": bucket,
            ])
            #expect(s3.addressing == .virtual)
            let key = "profile/42/photo one+.jpg"
            let url = try signers.configured.presign(
                PresignRequest(
                    method: "PUT", bucket: bucket, key: key, expires: 600,
                    signedHeaders: [("content-type", "image/jpeg")]), now: Self.now
            ).url
            cases.append(
                (
                    url,
                    BotocorePresign.Case(
                        method: "PUT", bucket: bucket, key: key, region: "eu-west-1", endpoint: s3.endpoint,
                        addressing: "virtual", expires: 600, epochSeconds: Self.now,
                        signedHeaders: ["content-type": "image/jpeg"], sessionToken: nil)
                ))
        }
        let output = try BotocorePresign.run(
            BotocorePresign.Input(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                cases: cases.map(\.case)))
        #expect(output.results.count == 2)
        for (ours, theirs) in zip(cases.map(\.url), output.results) {
            #expect(ours.split(separator: "?")[0] == theirs.url.split(separator: "?")[0], "botocore \(output.botocore)")
            #expect(ours.hasSuffix("X-Amz-Signature=" + theirs.signature))
        }
        #expect(cases[0].url.hasPrefix("https://uploads.s3.eu-west-1.amazonaws.com/profile/42/photo%20one%2B.jpg?"))
        #expect(cases[1].url.hasPrefix("https://s3.eu-west-1.amazonaws.com/my.dotted.bucket/profile/42/"))
    }
}
