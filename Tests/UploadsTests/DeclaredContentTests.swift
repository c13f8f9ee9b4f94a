import Config
import Records
import Testing
import Uploads
import UploadsTestSupport

/// What a client declares of its object at issue, checked (`UploadCatalog.checkDeclared`), and the
/// headers a URL signs for it on each provider (`Issuer.digestHeaders`).
@Suite struct DeclaredContentTests {
    static let sha = "cRc5reHoWp/hr1Nw2YJb0w3TkSKB80ECoevO7HOqpDU="
    static let md5 = "Jl+55GiW2vkDAayLd69RIw=="

    @Test("a size as query text: digits, a minus sign, anything else, past 64 bits")
    func sizeText() {
        #expect(DeclaredInput.size(text: "0") == .bytes(0))
        #expect(DeclaredInput.size(text: "1048576") == .bytes(1_048_576))
        #expect(DeclaredInput.size(text: "-3") == .bytes(-3))
        for text in ["", "-", "1.5", "1e6", " 1", "0x10", "١٢"] {
            #expect(DeclaredInput.size(text: text) == .malformed)
        }
        #expect(DeclaredInput.size(text: "99999999999999999999") == .tooLarge)
    }

    @Test("sizes: whole, not negative, not 0 for images, at most 5 TiB and the type's limit")
    func sizes() throws {
        let catalog = try UploadCatalog(PresigndConfig.defaults.types)
        let image = try #require(catalog.type(named: "IMAGE"))
        let video = try #require(catalog.type(named: "VIDEO"))
        func problems(_ size: DeclaredInput.Size, _ type: UploadType?) -> [UploadProblem] {
            catalog.checkDeclared(DeclaredInput(size: size), type: type).1
        }
        #expect(problems(.bytes(1), image).isEmpty)
        #expect(catalog.checkDeclared(DeclaredInput(size: .bytes(5)), type: image).0.size == 5)
        #expect(problems(.malformed, image) == [.sizeMalformed])
        #expect(problems(.bytes(-1), image) == [.sizeNegative(-1)])
        #expect(problems(.bytes(0), image) == [.sizeEmpty(type: "IMAGE")])
        #expect(problems(.bytes(0), video).isEmpty, "a type that is not all images may be empty")
        #expect(problems(.bytes(DeclaredContent.maxSize + 1), video) == [.sizeOverMaximum])
        #expect(problems(.tooLarge, nil) == [.sizeOverMaximum])
        let limit = image.config.maxBytes
        #expect(problems(.bytes(limit + 1), image) == [.sizeOverLimit(limit + 1, type: "IMAGE", limit: limit)])
    }

    @Test("digests: canonical base64 of their lengths; hex, short, non-base64 and a + turned space say so")
    func digests() throws {
        let catalog = try UploadCatalog(PresigndConfig.defaults.types)
        let ok = catalog.checkDeclared(DeclaredInput(checksumSHA256: Self.sha, contentMD5: Self.md5), type: nil)
        #expect(ok.1.isEmpty && ok.0 == DeclaredContent(checksumSHA256: Self.sha, contentMD5: Self.md5))
        func reason(_ digest: DeclaredDigest, _ text: String) -> String? {
            let input =
                digest == .sha256 ? DeclaredInput(checksumSHA256: text) : DeclaredInput(contentMD5: text)
            guard case .digestMalformed(let d, let reason)? = catalog.checkDeclared(input, type: nil).1.first,
                d == digest
            else { return nil }
            return reason
        }
        let hexSHA = "7117396ddde85a9fe1af5370d9825bd30dd3912281f34102a1ebceec73aa9435"
        #expect(reason(.sha256, hexSHA) == "it is hex: send the same 32 bytes in base64")
        #expect(reason(.sha256, Self.md5) == "it decodes to 16 bytes")
        #expect(reason(.md5, Self.sha) == "it decodes to 32 bytes")
        #expect(reason(.sha256, "not base64!") == "it is not base64")
        let withPlus = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        #expect(
            reason(.sha256, withPlus.replacingOccurrences(of: "+", with: " "))
                == "it holds a space (a + in a query must be sent as %2B)")
        #expect(reason(.md5, "Jl 55GiW2vkDAayLd69RIw==") == "it holds a space (a + in a query must be sent as %2B)")
        #expect(reason(.md5, "Jl+55GiW2vkDAayLd69RIw") == "it is not base64", "unpadded is not canonical")
        // Every problem at once, size first.
        let all = catalog.checkDeclared(
            DeclaredInput(size: .bytes(-1), checksumSHA256: "x", contentMD5: "y"), type: nil
        ).1
        #expect(all.count == 3 && all.first == .sizeNegative(-1))
    }

    @Test("signed per provider: what storage checks, the SHA-256 alone where one checksum is taken")
    func signedHeadersPerProvider() throws {
        let both = DeclaredContent(checksumSHA256: Self.sha, contentMD5: Self.md5)
        func names(_ provider: S3Config.Provider, _ declared: DeclaredContent = both) throws -> [String] {
            let h = try LifecycleHarness(storeChecksums: .preset(provider))
            return h.issuer.digestHeaders(declared).map(\.name)
        }
        #expect(try names(.aws) == ["content-md5", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm"])
        #expect(try names(.minio) == ["content-md5", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm"])
        #expect(try names(.r2) == ["x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm"])
        #expect(try names(.r2, DeclaredContent(contentMD5: Self.md5)) == ["content-md5"])
        for provider in [S3Config.Provider.ceph, .gcs, .ncp, .custom] {
            #expect(try names(provider) == ["content-md5"])
        }
        let none = try LifecycleHarness(storeChecksums: StoreChecksums(contentMD5: false, sha256: false))
        #expect(none.issuer.digestHeaders(both).isEmpty)
        var config = PresigndConfig.defaults
        config.s3.provider = .ceph
        config.s3.checksums = ["content-md5", "sha256"]
        #expect(config.s3.storeChecksums == StoreChecksums(contentMD5: true, sha256: true))
        config.s3.checksums = ["none"]
        #expect(config.s3.storeChecksums == StoreChecksums(contentMD5: false, sha256: false))
    }

    @Test("an issue by type signs the declared length and digests and keeps them on its intent")
    func issueByTypeKeepsTheDeclaration() throws {
        let sink = RecordingIntentSink()
        let h = try LifecycleHarness(sink: sink, storeChecksums: .preset(.aws))
        let upload = try h.catalog.checkNew(
            typeName: "PROFILE", ext: "png", chatroomId: nil,
            declared: DeclaredInput(size: .bytes(1234), checksumSHA256: Self.sha, contentMD5: Self.md5))
        let issued = try h.issuer.issue(upload, owner: "7", signing: .pathStyle, recordsIntent: true).kept()
        #expect(
            issued.presigned.headers.map(\.name) == [
                "Content-Length", "Content-MD5", "x-amz-checksum-sha256", "x-amz-sdk-checksum-algorithm",
            ])
        #expect(issued.presigned.url.contains("X-Amz-SignedHeaders=content-length%3Bcontent-md5%3Bhost%3B"))
        let intent = try #require(sink.intents.first)
        #expect(intent.declaredSize == 1234 && intent.maxBytes == 1234)
        #expect(intent.checksumSHA256 == Self.sha && intent.contentMD5 == Self.md5)
        // Without a declaration, client P's URL signs host alone, as before.
        let plain = try h.catalog.checkNew(typeName: "PROFILE", ext: "png", chatroomId: nil)
        let url = try h.issuer.issue(plain, owner: "7", signing: .pathStyle, recordsIntent: true).kept()
        #expect(url.presigned.headers.isEmpty && url.presigned.url.contains("X-Amz-SignedHeaders=host&"))
    }
}
