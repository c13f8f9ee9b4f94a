import Config
import Crypto
import Foundation
import Logging
import ObjectStore
import SigV4
import System
import TestSupport
import Testing
import Uploads

@testable import App

/// The multipart janitor against a real RGW: uploads older than the age are aborted, bounded per
/// run; young ones and those under other prefixes stay.
@Suite("Multipart janitor")
struct MultipartJanitorTests {
    static func client(_ s3: TestEnvironment.S3) throws -> S3Client {
        let signer = try Presigner(
            credentials: Credentials(
                accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey), sessionToken: nil),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        return S3Client(
            options: ObjectStoreOptions(endpoint: try Endpoint(parsing: s3.endpoint), bucket: s3.bucket),
            signer: signer, now: { Int64(Date().timeIntervalSince1970) })
    }

    static func uploads(_ storage: S3Client, prefix: String) throws -> Set<String> {
        var out = Set<String>()
        var marker: (String?, String?) = (nil, nil)
        repeat {
            let page = try storage.listMultipartUploads(
                prefix: prefix, keyMarker: marker.0, uploadIdMarker: marker.1, maxUploads: 1000)
            for u in page.uploads { out.insert(u.uploadId) }
            marker = (page.nextKeyMarker, page.nextUploadIdMarker)
        } while marker.0 != nil
        return out
    }

    @Test("old uploads under the prefixes are aborted, at most maxAborts per run, over several pages")
    func sweep() throws {
        let s3 = try TestEnvironment.s3()
        let storage = try Self.client(s3)
        let run = "mpj-\(UUID().uuidString.lowercased())"
        let prefix = "\(run)/tmp/"
        var old: [String] = []
        for i in 0..<5 { old.append(try storage.createMultipartUpload(key: "\(prefix)v\(i)")) }
        let outside = try storage.createMultipartUpload(key: "\(run)/kept/v")
        // The clock: one hour after the uploads began, with an age of 30 minutes; pages of 2.
        let later = (Int64(Date().timeIntervalSince1970) + 3600) * 1000
        let janitor = MultipartJanitor(
            storage: storage, prefixes: [prefix, prefix + "sub/"], abortAfterSeconds: 1800, maxAborts: 3, pageSize: 2,
            nowMillis: { later }, events: { _ in })
        #expect(janitor.prefixes == [prefix])
        #expect(janitor.sweep() == 3)
        #expect(try Self.uploads(storage, prefix: prefix).count == 2)
        #expect(janitor.sweep() == 2)
        #expect(try Self.uploads(storage, prefix: prefix).isEmpty)
        #expect(janitor.sweep() == 0)
        #expect(try Self.uploads(storage, prefix: "\(run)/kept/") == [outside])

        // Young uploads stay: the same janitor with the real clock.
        let young = try storage.createMultipartUpload(key: "\(prefix)young")
        let now = MultipartJanitor(
            storage: storage, prefixes: [prefix], abortAfterSeconds: 1800, maxAborts: 10,
            nowMillis: { Int64(Date().timeIntervalSince1970) * 1000 }, events: { _ in })
        #expect(now.sweep() == 0)
        #expect(try Self.uploads(storage, prefix: prefix) == [young])
        try storage.abortMultipartUpload(key: "\(prefix)young", uploadId: young)
        try storage.abortMultipartUpload(key: "\(run)/kept/v", uploadId: outside)
    }

    @Test func prefixesOfTypes() {
        #expect(MultipartJanitor.minimal(["delete/a/", "delete/", "x/", "delete/b/"]) == ["delete/", "x/"])
        #expect(MultipartJanitor.minimal(["a/", ""]) == [""])
        #expect(
            MultipartJanitor.prefixes(of: PresigndConfig.defaults.types) == [
                "delete/profile/", "delete/feed/", "delete/chatroom/", "delete/chatroom/", "delete/chatroom/", "",
                "video/",
            ])
    }
}
