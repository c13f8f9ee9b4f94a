import Testing

@testable import Records

/// The blob layout of a batch of intents: round trips, offsets, and bytes that are not a batch.
@Suite struct IntentBatchCodecTests {
    /// Intents with every optional field both ways, empty and non-ASCII strings.
    static let intents: [UploadIntent] = [
        Sample.intent(),
        Sample.intent(
            owner: "", key: "delete/profile/u-1/ünïcødé 🙂_1.jpg", expiresAtMs: -1, permanentKey: "origin/x.jpg",
            contentType: nil, allowed: []),
        UploadIntent(
            ownerId: "o", imageKey: "k", objectKey: "", permanentKey: "", type: "", contentType: "",
            allowedContentTypes: ["a/b"], maxBytes: Int64.max, createdAtMs: Int64.min, expiresAtMs: 0),
    ]

    @Test func anObjectKeyEqualToTheImageKeyIsStoredOnce() throws {
        var same = Sample.intent()
        same.objectKey = same.imageKey
        var different = same
        different.objectKey = same.imageKey + "x"
        let one = try IntentBatchCodec.encode([same]).blobs[0]
        let other = try IntentBatchCodec.encode([different]).blobs[0]
        #expect(other.count - one.count == same.imageKey.utf8.count + 1)
        one.withUnsafeBytes { #expect(IntentBatchCodec.decode($0, at: 1) == same) }
        other.withUnsafeBytes { #expect(IntentBatchCodec.decode($0, at: 1) == different) }
    }

    @Test func keysKeepTheirBytesWhenTheyAreOnlyCanonicallyEqual() throws {
        // "é" precomposed (NFC) and decomposed (NFD): Swift's == calls them equal, the bytes differ.
        var intent = Sample.intent(key: "k-\u{E9}.jpg")
        intent.objectKey = "k-e\u{301}.jpg"
        #expect(intent.objectKey == intent.imageKey)
        let blob = try IntentBatchCodec.encode([intent]).blobs[0]
        let decoded = try #require(blob.withUnsafeBytes { IntentBatchCodec.decode($0, at: 1) })
        #expect(Array(decoded.objectKey.utf8) == Array(intent.objectKey.utf8))
        #expect(Array(decoded.imageKey.utf8) == Array(intent.imageKey.utf8))
    }

    @Test func intentsRoundTripAtTheirOffsets() throws {
        let (blobs, places) = try IntentBatchCodec.encode(Self.intents)
        #expect(blobs.count == 1)
        #expect(places.map(\.batch) == [0, 0, 0])
        #expect(places[0].offset == 1)
        blobs[0].withUnsafeBytes { blob in
            for (i, intent) in Self.intents.enumerated() {
                #expect(IntentBatchCodec.decode(blob, at: places[i].offset) == intent)
            }
            let all = IntentBatchCodec.decodeAll(blob)
            #expect(all?.map(\.intent) == Self.intents)
            #expect(all?.map(\.offset) == places.map(\.offset))
        }
    }

    @Test func everyOtherOffsetAndEveryTruncationIsRefusedWithoutACrash() throws {
        let (blobs, places) = try IntentBatchCodec.encode(Self.intents)
        let starts = Set(places.map(\.offset))
        blobs[0].withUnsafeBytes { blob in
            for offset in -1...(blob.count + 1) where !starts.contains(offset) {
                #expect(IntentBatchCodec.decode(blob, at: offset) == nil, "offset \(offset)")
            }
        }
        for length in 0..<blobs[0].count {
            let cut = Array(blobs[0].prefix(length))
            cut.withUnsafeBytes { blob in
                // A cut inside the last entry loses it; a cut on an entry boundary is a shorter batch.
                if let all = IntentBatchCodec.decodeAll(blob) {
                    #expect(length == 1 || places.contains { $0.offset == length }, "length \(length)")
                    #expect(all.map(\.intent) == Array(Self.intents.prefix(all.count)))
                }
            }
        }
        var wrongVersion = blobs[0]
        wrongVersion[0] = 2
        wrongVersion.withUnsafeBytes { #expect(IntentBatchCodec.decodeAll($0) == nil) }
    }

    @Test func aLargeBatchIsSplitAndOneOversizedIntentIsRefused() throws {
        let many = (0..<40).map { _ in Sample.intent() }
        let (blobs, places) = try IntentBatchCodec.encode(many, maxBytes: 1_000)
        #expect(blobs.count > 1)
        #expect(blobs.allSatisfy { $0.count <= 1_000 })
        for (i, intent) in many.enumerated() {
            blobs[places[i].batch].withUnsafeBytes { blob in
                #expect(IntentBatchCodec.decode(blob, at: places[i].offset) == intent)
            }
        }
        let huge = Sample.intent(key: String(repeating: "k", count: 2_000))
        #expect(throws: RecordsError.self) { try IntentBatchCodec.encode([huge], maxBytes: 1_000) }
    }

    @Test func aContentTypeWithALineFeedIsRefusedAsInTheRowLayout() {
        #expect(throws: RecordsError.self) {
            try IntentBatchCodec.encode([Sample.intent(allowed: ["image/jpeg\nimage/png"])])
        }
        #expect(throws: RecordsError.self) { try IntentBatchCodec.encode([Sample.intent(allowed: [""])]) }
    }
}
