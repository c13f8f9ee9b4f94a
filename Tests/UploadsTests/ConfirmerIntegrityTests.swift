import Config
import Crypto
import ObjectStore
import Records
import Synchronization
import TestSupport
import Testing
import Uploads
import UploadsTestSupport

/// The proof of a declared digest at confirmation, before anything is recorded: storage's own SHA-256,
/// the ETag's MD5, else the object read and hashed (`verifyChecksum = read`) or nothing read
/// (`trust-store`); a mismatch refused through the one rejection place (object deleted, nothing
/// recorded, the event reported); the record's `sha256`; `computeSha256`; `dedup`.
@Suite struct ConfirmerIntegrityTests {
    static let keyA = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
    static let keyB = "1c8f7b68-3d2c-4d3f-8e7a-2a3f4e5d6c7b"
    static let bytes = LifecycleHarness.jpeg
    static let other = TestImagesBytes.otherJPEG
    static let sha = Base64.encode(SHA256.hash(bytes).bytes)
    static let md5 = Base64.encode(MD5.hash(bytes))
    static let md5Hex = Hex.encode(MD5.hash(bytes))

    /// The defaults with the IMAGE type's integrity options set.
    static func config(
        verify: UploadTypeConfig.VerifyChecksum = .read, compute: Bool = false, dedup: Bool = false
    ) -> PresigndConfig {
        var config = PresigndConfig.defaults
        for i in config.types.indices where config.types[i].name == "IMAGE" {
            config.types[i].verifyChecksum = verify
            config.types[i].computeSha256 = compute
            config.types[i].dedup = dedup
        }
        return config
    }

    /// Stores the intent of an IMAGE upload of `key` declaring `sha256`/`md5`/`size`, and puts `object`
    /// under the key (ETag `etag`; storage keeps `stored` as its SHA-256 when given).
    static func upload(
        _ h: LifecycleHarness, _ key: String, owner: String = "7", sha256: String? = nil, md5: String? = nil,
        size: Int64? = nil, object: [UInt8] = bytes, etag: String = "e1", stored: String? = nil
    ) throws {
        try h.store.putIntents([
            UploadIntent(
                ownerId: owner, imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE",
                contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: size ?? 100_000,
                createdAtMs: LifecycleHarness.now, expiresAtMs: LifecycleHarness.now + 600_000, declaredSize: size,
                checksumSHA256: sha256, contentMD5: md5)
        ])
        h.storage.put(key, bytes: object, contentType: "image/jpeg", etag: etag, checksumSHA256: stored)
    }

    @Test("nothing declared: no digest asked for, no read, no sha256 (the path of every plain upload)")
    func nothingDeclaredCostsNothing() throws {
        let h = try LifecycleHarness(storeChecksums: .preset(.aws))
        try Self.upload(h, Self.keyA)
        let confirmed = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(confirmed.created && confirmed.record.sha256 == nil)
        #expect(h.storage.calls.allSatisfy { !$0.hasPrefix("READ") && !$0.hasPrefix("HEAD+checksums") })
        #expect(h.confirmer.checksumReads.load(ordering: .relaxed) == 0)
    }

    @Test("a SHA-256 storage cannot prove (RGW): the object is read; the right bytes are recorded with it")
    func sha256ProvenByReading() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, sha256: Self.sha)
        let confirmed = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(confirmed.record.sha256 == Self.sha)
        #expect(h.storage.calls.contains("READ \(Self.keyA)"))
        #expect(!h.storage.calls.contains("HEAD+checksums \(Self.keyA)"), "a store that keeps none is not asked")
        #expect(h.confirmer.checksumReads.load(ordering: .relaxed) == 1)
        #expect(h.confirmer.checksumReadBytes.load(ordering: .relaxed) == Self.bytes.count)
    }

    @Test("other bytes than the declared SHA-256: 422 naming both digests, the object deleted, nothing recorded")
    func sha256Mismatch() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, sha256: Self.sha, object: Self.other)
        let actual = Base64.encode(SHA256.hash(Self.other).bytes)
        let expected = UploadError.checksumMismatch(
            ChecksumMismatch(digest: .sha256, declared: Self.sha, actual: actual))
        #expect(throws: expected) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7") }
        #expect(!h.storage.keys.contains(Self.keyA))
        #expect(try h.store.record(imageKey: Self.keyA) == nil)
        #expect(
            h.events.all.contains(
                .checksumRefused(
                    type: "IMAGE", algorithm: "SHA-256", declared: Self.sha, actual: actual,
                    size: Int64(Self.other.count), owner: "7")))
        #expect(h.confirmer.checksumRefusals.load(ordering: .relaxed) == 1)
        // The claim was given back: a later confirmation finds no object, as after a content mismatch.
        #expect(throws: UploadError.imageNotUploaded(expiredAtMs: nil)) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        }
        #expect(ChecksumMismatch(digest: .sha256, declared: Self.sha, actual: actual).message.contains(actual))
    }

    @Test("a store that keeps SHA-256 proves it from its HEAD, or refuses it, without reading a byte")
    func sha256ProvenByTheStore() throws {
        let h = try LifecycleHarness(storeChecksums: .preset(.aws))
        try Self.upload(h, Self.keyA, sha256: Self.sha, stored: Self.sha)
        #expect(try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").record.sha256 == Self.sha)
        let wrong = Base64.encode(SHA256.hash(Self.other).bytes)
        try Self.upload(h, Self.keyB, sha256: Self.sha, stored: wrong)
        #expect(
            throws: UploadError.checksumMismatch(ChecksumMismatch(digest: .sha256, declared: Self.sha, actual: wrong))
        ) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7") }
        #expect(h.storage.calls.contains("HEAD+checksums \(Self.keyA)"))
        #expect(h.storage.calls.allSatisfy { !$0.hasPrefix("READ") })
    }

    @Test("an MD5 equal to the ETag is proven without reading; an ETag that is no MD5 proves nothing")
    func md5ProvenByTheETag() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, md5: Self.md5, etag: Self.md5Hex.uppercased())
        #expect(try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").record.sha256 == nil)
        #expect(h.storage.calls.allSatisfy { !$0.hasPrefix("READ") })
        // A multipart ETag (`-N`): read, and the other bytes refused.
        try Self.upload(h, Self.keyB, md5: Self.md5, object: Self.other, etag: Self.md5Hex + "-2")
        #expect(throws: UploadError.self) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7") }
        #expect(h.storage.calls.contains("READ \(Self.keyB)") && !h.storage.keys.contains(Self.keyB))
        // An ETag that is an MD5 of other bytes does not refuse by itself: the read decides (right bytes).
        let h2 = try LifecycleHarness()
        try Self.upload(h2, Self.keyA, md5: Self.md5, etag: Hex.encode(MD5.hash(Self.other)))
        #expect(try h2.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").created)
        #expect(h2.storage.calls.contains("READ \(Self.keyA)"))
    }

    @Test("an MD5 proven by the ETag does not prove a SHA-256 declared beside it")
    func md5DoesNotProveSHA256() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, sha256: Self.sha, md5: Self.md5, etag: Self.md5Hex)
        #expect(try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").record.sha256 == Self.sha)
        #expect(h.storage.calls.contains("READ \(Self.keyA)"))
    }

    @Test("trust-store: nothing read; an unproven SHA-256 is not recorded, a proven one is")
    func trustStore() throws {
        let h = try LifecycleHarness(config: Self.config(verify: .trustStore))
        try Self.upload(h, Self.keyA, sha256: Self.sha, object: Self.other)
        let unproven = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(unproven.created && unproven.record.sha256 == nil)
        #expect(h.storage.calls.allSatisfy { !$0.hasPrefix("READ") })
        let aws = try LifecycleHarness(config: Self.config(verify: .trustStore), storeChecksums: .preset(.aws))
        try Self.upload(aws, Self.keyA, sha256: Self.sha, stored: Self.sha)
        #expect(try aws.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").record.sha256 == Self.sha)
    }

    @Test("computeSha256: an upload that declared nothing gets the SHA-256 of its bytes")
    func computeSha256() throws {
        let h = try LifecycleHarness(config: Self.config(verify: .trustStore, compute: true))
        try Self.upload(h, Self.keyA)
        #expect(try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7").record.sha256 == Self.sha)
        #expect(h.storage.calls.contains("READ \(Self.keyA)"))
    }

    @Test("a size other than the declared one is refused and deleted")
    func declaredSize() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, size: Int64(Self.bytes.count) + 1)
        #expect(throws: UploadError.sizeMismatch(size: Int64(Self.bytes.count), declared: Int64(Self.bytes.count) + 1))
        {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        }
        #expect(!h.storage.keys.contains(Self.keyA))
        try Self.upload(h, Self.keyB, size: Int64(Self.bytes.count))
        #expect(try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7").created)
    }

    @Test("dedup on: the same bytes of the same owner and type answer the first record, the new object goes")
    func dedup() throws {
        let h = try LifecycleHarness(config: Self.config(dedup: true))
        try Self.upload(h, Self.keyA, sha256: Self.sha)
        let first = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(first.created && !first.deduplicated)
        try Self.upload(h, Self.keyB, sha256: Self.sha)
        let second = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7")
        #expect(second.deduplicated && !second.created && second.record == first.record)
        #expect(!h.storage.keys.contains(Self.keyB) && h.storage.keys.contains(Self.keyA))
        #expect(try h.store.record(imageKey: Self.keyB) == nil)
        // Asked again, the same answer (the claim is settled by the first record).
        let again = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7")
        #expect(again.deduplicated && again.record == first.record)
        // Another owner's same bytes are its own.
        let third = "2d9a8c79-4e3d-4e4a-9f8b-3b4a5f6e7d8c"
        try Self.upload(h, third, owner: "8", sha256: Self.sha)
        let theirs = try h.confirmer.confirm(Confirmation(imageKey: third), owner: "8")
        #expect(theirs.created && !theirs.deduplicated)
    }

    @Test("dedup off (the default): the same bytes make two records, both with the digest")
    func dedupOff() throws {
        let h = try LifecycleHarness()
        try Self.upload(h, Self.keyA, sha256: Self.sha)
        try Self.upload(h, Self.keyB, sha256: Self.sha)
        let a = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        let b = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7")
        #expect(a.created && b.created && a.record.id != b.record.id)
        #expect(a.record.sha256 == Self.sha && b.record.sha256 == Self.sha)
    }

    @Test("a completion checks the listed sizes against the declared size; a part URL signs its MD5")
    func partRules() throws {
        let listed: [Int: (etag: String, size: Int64)] = [1: ("a", 6 * 1024 * 1024), 2: ("b", 100)]
        let parts = [PartRules.Part(number: 1, etag: "a"), PartRules.Part(number: 2, etag: "b")]
        let total = Int64(6 * 1024 * 1024 + 100)
        #expect(
            try PartRules.checkCompletion(given: parts, listed: listed, maxBytes: total, type: "V", declaredSize: total)
                .total == total)
        #expect(throws: UploadError.partsSizeMismatch(size: total, declared: total + 1)) {
            try PartRules.checkCompletion(
                given: parts, listed: listed, maxBytes: total + 1, type: "V", declaredSize: total + 1)
        }
        #expect(PartRules.partDigestHeader(md5: Self.md5, storeChecksums: .preset(.ceph))?.name == "content-md5")
        #expect(PartRules.partDigestHeader(md5: nil, storeChecksums: .preset(.ceph)) == nil)
        #expect(
            PartRules.partDigestHeader(md5: Self.md5, storeChecksums: StoreChecksums(contentMD5: false, sha256: false))
                == nil)
    }
}

/// A second JPEG, other bytes than `LifecycleHarness.jpeg`.
enum TestImagesBytes {
    static let otherJPEG: [UInt8] = TestImages.image(.jpeg, width: 5, height: 3)
}
